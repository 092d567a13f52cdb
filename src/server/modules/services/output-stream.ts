import { OUTPUT_DONE, type ServiceOutputEvent } from '@/contracts/services.js';
import { commentFrame, type SseStream } from '../events/sse-stream.js';
import type { OutputFeed } from './output-feed.js';

const CONNECTED = commentFrame('connected');
const KEEPALIVE = commentFrame('keepalive');
const DONE = Buffer.from(`data: ${OUTPUT_DONE}\n\n`);

/** One `data:` line per event, as seed 002 shows them (no `id:` or `event:` lines). */
const frameOf = (event: ServiceOutputEvent) => Buffer.from(`data: ${JSON.stringify(event)}\n\n`);

export interface OutputStreamOptions {
  keepaliveMs: number;
  /** Ends the stream when the server shuts down. */
  shutdown: AbortSignal;
}

/**
 * Serves a service's output over SSE: the stored events, then live stdout/stderr until the run's
 * `exit` event, then `data: [DONE]`. A service that is not running gets its stored output and
 * `[DONE]` at once. Resolves when the stream has ended.
 */
export async function pumpServiceOutput(
  out: SseStream,
  feed: OutputFeed,
  options: OutputStreamOptions,
): Promise<void> {
  const finish = () => {
    out.write(DONE);
    out.end('done', false);
  };
  const keepalive = setInterval(() => out.write(KEEPALIVE), options.keepaliveMs);
  const onShutdown = () => out.end('shutdown');
  options.shutdown.addEventListener('abort', onShutdown);
  let unsubscribe = () => {};
  try {
    out.write(CONNECTED);
    for (const event of feed.replay) out.write(frameOf(event));
    out.flush();
    if (feed.follow) {
      out.goLive();
      unsubscribe = feed.follow((event) => out.write(frameOf(event)), finish);
    } else finish();
    if (options.shutdown.aborted) out.end('shutdown');
    await out.done;
  } finally {
    unsubscribe();
    clearInterval(keepalive);
    options.shutdown.removeEventListener('abort', onShutdown);
  }
}
