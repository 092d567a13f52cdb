/**
 * The one place that opens an EventSource (STYLE habit 8). It adds what the browser's own
 * reconnection does not: a bounded backoff once the browser gives up (1 s, 2 s, 4 s), resuming
 * from the last id seen (`?lastEventId=`, since a new EventSource cannot set Last-Event-ID), and the
 * server's `timeout` event, after which the stream is resumed only while the caller still wants it.
 */

export type StreamState = 'connecting' | 'open' | 'reconnecting' | 'idle' | 'failed';

export interface EventStreamOptions {
  url: string;
  /** Named events to listen for; `timeout` is handled here. */
  events: readonly string[];
  onMessage: (type: string, data: unknown, id: number | null) => void;
  onStateChange?: (state: StreamState, error: string | null) => void;
  /** After the server's `timeout`: resume when this answers true, else go idle. Default: resume. */
  resumeAfterTimeout?: () => boolean;
  /** Resume after this id on the first connection (what the caller already holds). */
  initialLastEventId?: number | null;
  /** Delays of the reconnect attempts after the browser gives up. */
  backoffMs?: readonly number[];
  createEventSource?: (url: string) => EventSource;
}

export interface EventStream {
  /** Reconnects now, resuming after the last id seen, with a fresh set of attempts. */
  reconnect: () => void;
  close: () => void;
  readonly lastEventId: number | null;
}

export const DEFAULT_BACKOFF_MS = [1000, 2000, 4000] as const;
const CLOSED = 2;

/** A server-sent message rather than a connection error: both arrive as `error` events. */
function isMessage(event: Event): event is MessageEvent<string> {
  return 'data' in event && typeof (event as MessageEvent).data === 'string';
}

function withLastEventId(url: string, id: number | null): string {
  if (id === null) return url;
  return `${url}${url.includes('?') ? '&' : '?'}lastEventId=${id}`;
}

export function openEventStream(options: EventStreamOptions): EventStream {
  const backoff = options.backoffMs ?? DEFAULT_BACKOFF_MS;
  const create = options.createEventSource ?? ((url: string) => new EventSource(url));
  let source: EventSource | null = null;
  let lastEventId = options.initialLastEventId ?? null;
  let attempts = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let closed = false;

  const report = (state: StreamState, error: string | null = null) => options.onStateChange?.(state, error);

  const detach = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    source?.close();
    source = null;
  };

  const dispatch = (type: string, event: MessageEvent<string>) => {
    if (event.lastEventId) {
      const id = Number(event.lastEventId);
      if (Number.isSafeInteger(id)) lastEventId = id;
    }
    let data: unknown;
    try {
      data = JSON.parse(event.data);
    } catch {
      return; // Not ours to guess at.
    }
    options.onMessage(type, data, event.lastEventId ? lastEventId : null);
  };

  const scheduleRetry = () => {
    detach();
    const delay = backoff[attempts];
    if (delay === undefined) {
      report('failed', 'Live updates stopped: the server could not be reached.');
      return;
    }
    attempts += 1;
    report('reconnecting', null);
    timer = setTimeout(connect, delay);
  };

  function connect() {
    detach();
    if (closed) return;
    const es = create(withLastEventId(options.url, lastEventId));
    source = es;
    report(attempts > 0 ? 'reconnecting' : 'connecting');
    es.onopen = () => {
      attempts = 0;
      report('open');
    };
    es.onerror = (event) => {
      if (isMessage(event) || source !== es) return;
      // CONNECTING: the browser retries by itself (with Last-Event-ID). CLOSED: it gave up.
      if (es.readyState === CLOSED) scheduleRetry();
      else report('reconnecting');
    };
    for (const type of options.events) {
      es.addEventListener(type, (event) => {
        if (isMessage(event)) dispatch(type, event);
      });
    }
    es.addEventListener('timeout', () => {
      if (source !== es) return;
      detach();
      if (options.resumeAfterTimeout?.() ?? true) {
        attempts = 0;
        connect();
      } else {
        report('idle');
      }
    });
  }

  connect();

  return {
    reconnect: () => {
      if (closed) return;
      attempts = 0;
      connect();
    },
    close: () => {
      closed = true;
      detach();
    },
    get lastEventId() {
      return lastEventId;
    },
  };
}
