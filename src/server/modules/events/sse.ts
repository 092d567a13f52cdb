import type { SSEStreamingApi } from 'hono/streaming';
import type { StoredEvent } from '../../../contracts/pipeline.js';
import type { EventLog } from './event-log.js';

export interface SseSettings {
  /** A comment line this often keeps proxies from closing an idle stream (NFR-04-004: 30 s). */
  keepaliveMs: number;
  /** Streams end after this long with a `timeout` event; clients reconnect (BR-04-015: 10 min). */
  timeoutMs: number;
}

/** Stored events read per query while catching a client up. */
const REPLAY_PAGE = 1000;

export const DEFAULT_SSE_SETTINGS: SseSettings = { keepaliveMs: 30_000, timeoutMs: 10 * 60_000 };

export interface PumpOptions {
  log: EventLog;
  stream: string;
  /** Replay events after this id before going live. */
  afterSeq: number;
  settings: SseSettings;
  now: () => number;
  /** Ends the stream when the server shuts down. */
  shutdown: AbortSignal;
}

/**
 * Serves one SSE client: a comment at once (so the browser sees the connection open),
 * then the stored events after `afterSeq`, then live ones — subscribed before the
 * replay is read, and de-duplicated by id, so there is no gap and no repeat.
 */
export async function pumpEvents(sse: SSEStreamingApi, options: PumpOptions): Promise<void> {
  const { log, stream, settings } = options;
  let lastSent = options.afterSeq;
  let live = false;
  const early: StoredEvent[] = [];
  let writing: Promise<void> = Promise.resolve();

  const send = (event: StoredEvent) => {
    if (event.id <= lastSent) return;
    lastSent = event.id;
    writing = writing.then(() =>
      sse.aborted || sse.closed
        ? undefined
        : sse.writeSSE({ id: String(event.id), event: event.type, data: JSON.stringify(event.data) }),
    );
  };

  const unsubscribe = log.bus.subscribe(stream, (event) => (live ? send(event) : early.push(event)));
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const keepalive = setInterval(() => {
    writing = writing.then(() =>
      sse.aborted || sse.closed ? undefined : sse.write(': keepalive\n\n').then(() => {}),
    );
  }, settings.keepaliveMs);
  const timeout = setTimeout(() => {
    writing = writing.then(async () => {
      if (sse.aborted || sse.closed) return;
      await sse.writeSSE({
        event: 'timeout',
        data: JSON.stringify({
          message: 'Connection timed out. Reconnect if the pipeline is still running.',
          timestamp: options.now(),
        }),
      });
    });
    void writing.then(finish);
  }, settings.timeoutMs);
  const onShutdown = () => finish();
  options.shutdown.addEventListener('abort', onShutdown);
  sse.onAbort(() => finish());

  try {
    await sse.write(': connected\n\n');
    // Page through the log: a long run (or a reload replaying one) can hold more than one page.
    for (;;) {
      const page = await log.replay(stream, lastSent, REPLAY_PAGE);
      for (const event of page) send(event);
      if (page.length < REPLAY_PAGE || sse.aborted) break;
    }
    live = true;
    for (const event of early.splice(0)) send(event);
    if (options.shutdown.aborted) finish();
    await finished;
    await writing;
  } finally {
    unsubscribe();
    clearInterval(keepalive);
    clearTimeout(timeout);
    options.shutdown.removeEventListener('abort', onShutdown);
  }
}

/** The id a reconnecting client last saw (Last-Event-ID header, or ?lastEventId= for manual reconnects). */
export function lastEventIdOf(header: string | undefined, query: string | undefined): number | null {
  const raw = header ?? query;
  if (raw === undefined || raw === '') return null;
  const value = Number(raw);
  return Number.isSafeInteger(value) && value >= 0 ? value : null;
}
