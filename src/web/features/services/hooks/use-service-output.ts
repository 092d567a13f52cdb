import { useCallback, useEffect, useState } from 'react';
import { OUTPUT_DONE, type ServiceOutputEvent } from '@/contracts/services';
import { servicePath } from '../api/get-services';
import { appendOutput, EMPTY_OUTPUT, type OutputState } from '../utils/output-lines';
import { sseData } from '../utils/sse-frames';

export type OutputStreamState = 'connecting' | 'live' | 'ended' | 'failed';

/** How often received output is applied: one render per batch, not per event. */
const FLUSH_MS = 50;

export interface ServiceOutput extends OutputState {
  state: OutputStreamState;
  error: string | null;
  reconnect: () => void;
}

/**
 * A service's output stream (`GET …/:id/output`): the stored output, then live stdout/stderr until
 * the `exit` event and `[DONE]`. Read with fetch rather than EventSource: the stream ends on purpose
 * after `[DONE]`, which EventSource would take for a dropped connection and replay forever.
 * `runKey` (the run's `startedAt`) reopens the stream for a new run, whose output starts afresh.
 */
export function useServiceOutput(
  workspaceId: string,
  serviceId: string,
  { enabled, runKey }: { enabled: boolean; runKey: string | undefined },
): ServiceOutput {
  const [output, setOutput] = useState<OutputState>(EMPTY_OUTPUT);
  const [state, setState] = useState<OutputStreamState>('connecting');
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new run or a reconnect reopens the stream.
  useEffect(() => {
    if (!enabled) return;
    const abort = new AbortController();
    let pending: ServiceOutputEvent[] = [];
    let timer: ReturnType<typeof setTimeout> | null = null;
    const flush = () => {
      timer = null;
      const batch = pending;
      pending = [];
      setOutput((current) => appendOutput(current, batch));
    };
    const push = (event: ServiceOutputEvent) => {
      pending.push(event);
      timer ??= setTimeout(flush, FLUSH_MS);
    };

    // Each connection replays the stored output from its start.
    setOutput(EMPTY_OUTPUT);
    setState('connecting');
    setError(null);
    void (async () => {
      try {
        const response = await fetch(`${servicePath(workspaceId, serviceId)}/output`, {
          credentials: 'same-origin',
          headers: { accept: 'text/event-stream' },
          signal: abort.signal,
        });
        if (!response.ok || !response.body) {
          throw new Error(`The log stream answered ${response.status} ${response.statusText}`.trim());
        }
        setState('live');
        let done = false;
        for await (const data of sseData(response.body)) {
          if (data === OUTPUT_DONE) {
            done = true;
            break;
          }
          try {
            push(JSON.parse(data) as ServiceOutputEvent);
          } catch {
            // A frame that is not an output event (none are sent today) is skipped, not fatal.
          }
        }
        if (!done)
          throw new Error('The log stream was cut off (the server restarted or the connection dropped).');
        if (timer) clearTimeout(timer);
        flush();
        setState('ended');
      } catch (cause) {
        if (abort.signal.aborted) return;
        if (timer) clearTimeout(timer);
        flush();
        setState('failed');
        setError(cause instanceof Error ? cause.message : 'The log stream failed');
      }
    })();
    return () => {
      abort.abort();
      if (timer) clearTimeout(timer);
    };
  }, [workspaceId, serviceId, enabled, runKey, attempt]);

  const reconnect = useCallback(() => setAttempt((n) => n + 1), []);
  return { ...output, state, error, reconnect };
}
