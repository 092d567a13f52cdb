import type { ServiceOutputEvent } from '@/contracts/services.js';
import type { ManagedService } from './managed-service.js';

/** A client's view of a service's output: what is stored now, then what comes until the run ends. */
export interface OutputFeed {
  replay: ServiceOutputEvent[];
  /**
   * Follows the run from the moment `replay` was taken (events that came meanwhile are handed
   * over first); `onEnd` once it has ended. Null when no run is going: replay, then done.
   */
  follow: ((onEvent: (event: ServiceOutputEvent) => void, onEnd: () => void) => () => void) | null;
}

/** Takes the run's stored output and starts listening in the same turn, so no event falls between. */
export function feedOf(run: ManagedService): OutputFeed {
  const replay = run.options.log.events();
  if (!run.active) return { replay, follow: null };
  const early: ServiceOutputEvent[] = [];
  let sink: ((event: ServiceOutputEvent) => void) | null = null;
  let ended = false;
  let endSink: (() => void) | null = null;
  const onOutput = (event: ServiceOutputEvent) => (sink ? sink(event) : early.push(event));
  const onEnd = () => {
    ended = true;
    endSink?.();
  };
  run.on('output', onOutput);
  run.once('end', onEnd);
  const unsubscribe = () => {
    run.off('output', onOutput);
    run.off('end', onEnd);
  };
  return {
    replay,
    follow(onEvent, whenEnded) {
      for (const event of early.splice(0)) onEvent(event);
      sink = onEvent;
      endSink = whenEnded;
      if (ended) whenEnded();
      return unsubscribe;
    },
  };
}
