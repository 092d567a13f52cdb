import type { StoredEvent } from '@/contracts/pipeline.js';
import type { EventLog } from './event-log.js';
import { commentFrame, frameOf, type SseStream } from './sse-stream.js';

export interface SseSettings {
  /** A comment line this often (30 s) keeps proxies from closing an idle stream. */
  keepaliveMs: number;
  /** Streams end after this long (10 min) with a `timeout` event; clients reconnect. */
  timeoutMs: number;
  /** Unsent bytes a live client may hold before it is closed as too slow (it resumes with Last-Event-ID). */
  maxQueueBytes: number;
  /** Open streams per user; opening one more closes the user's oldest. */
  maxStreamsPerUser: number;
  /** How often open streams' sessions are checked, so a stream ends soon after its session expires. */
  sessionCheckMs: number;
}

/** Stored events read per query while catching a client up. */
const REPLAY_PAGE = 1000;

export const DEFAULT_SSE_SETTINGS: SseSettings = {
  keepaliveMs: 30_000,
  timeoutMs: 10 * 60_000,
  maxQueueBytes: 4 * 1024 * 1024,
  maxStreamsPerUser: 50,
  sessionCheckMs: 5000,
};

const CONNECTED = commentFrame('connected');
const KEEPALIVE = commentFrame('keepalive');

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
 * replay is read, and de-duplicated by id, so there is no gap and no repeat. Catching up
 * is paced by the socket; once live, a client that falls `maxQueueBytes` behind is closed.
 * Resolves when the stream has ended.
 */
export async function pumpEvents(out: SseStream, options: PumpOptions): Promise<void> {
  const { log, stream, settings } = options;
  let lastSent = options.afterSeq;
  let live = false;
  const early: StoredEvent[] = [];

  const send = (event: StoredEvent) => {
    if (event.id <= lastSent) return;
    lastSent = event.id;
    out.write(frameOf(event));
  };

  const unsubscribe = log.bus.subscribe(stream, (event) => (live ? send(event) : early.push(event)));
  const keepalive = setInterval(() => out.write(KEEPALIVE), settings.keepaliveMs);
  const timeout = setTimeout(() => {
    const message = 'Connection timed out. Reconnect if the pipeline is still running.';
    const data = JSON.stringify({ message, timestamp: options.now() });
    out.write(Buffer.from(`event: timeout\ndata: ${data}\n\n`));
    out.end('timeout');
  }, settings.timeoutMs);
  const onShutdown = () => out.end('shutdown');
  options.shutdown.addEventListener('abort', onShutdown);

  try {
    out.write(CONNECTED);
    out.flush();
    // Page through the log: a long run (or a reload replaying one) can hold more than one page.
    for (;;) {
      const page = await log.replay(stream, lastSent, REPLAY_PAGE);
      for (const event of page) send(event);
      if (page.length < REPLAY_PAGE || out.closed) break;
      await out.drained();
    }
    live = true;
    for (const event of early.splice(0)) send(event);
    out.goLive();
    if (options.shutdown.aborted) out.end('shutdown');
    await out.done;
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
