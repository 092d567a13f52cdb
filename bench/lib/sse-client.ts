import http from 'node:http';

/** One dispatched server-sent event. */
export interface SseEvent {
  /** The `id:` field of this event, or null when it had none. */
  id: string | null;
  /** The `event:` field ("message" when absent). */
  event: string;
  /** The `data:` lines joined with "\n". */
  data: string;
  /** Date.now() when the chunk that completed this event was read from the socket. */
  receivedAt: number;
}

export interface SseClientOptions {
  port: number;
  path: string;
  headers?: Record<string, string>;
  onEvent: (event: SseEvent) => void;
}

/**
 * A text/event-stream reader over a plain `node:http` request on its own connection, parsed by
 * hand (WHATWG rules: `field: value` lines, a blank line dispatches, lines starting with ':' are
 * comments, one leading space after the colon is dropped). Lines end with "\n" or "\r\n".
 * No reconnection: a dropped stream is recorded in `error`/`closed`, which a benchmark must report.
 */
export class SseClient {
  status = 0;
  /** Comment lines received (`: connected`, `: keepalive`). */
  comments = 0;
  events = 0;
  closed = false;
  error: Error | null = null;
  /** Resolves on the first byte of the body after a 200 (the server's `: connected`); rejects otherwise. */
  readonly opened: Promise<void>;

  private readonly req: http.ClientRequest;
  private buffer = '';
  private id: string | null = null;
  private event = '';
  private data: string[] = [];
  private stopping = false;

  constructor(private readonly options: SseClientOptions) {
    let resolveOpened: () => void = () => {};
    let rejectOpened: (error: Error) => void = () => {};
    this.opened = new Promise<void>((resolve, reject) => {
      resolveOpened = resolve;
      rejectOpened = reject;
    });
    // Unhandled if nobody awaits it before a failure; the failure stays in `error`.
    this.opened.catch(() => undefined);

    this.req = http.request(
      {
        host: '127.0.0.1',
        port: options.port,
        method: 'GET',
        path: options.path,
        agent: false,
        headers: { accept: 'text/event-stream', 'cache-control': 'no-cache', ...options.headers },
      },
      (res) => {
        this.status = res.statusCode ?? 0;
        if (this.status !== 200) {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const body = Buffer.concat(chunks).toString('utf8').slice(0, 300);
            this.fail(new Error(`GET ${options.path} answered ${this.status}: ${body}`));
            rejectOpened(this.error ?? new Error('SSE request failed'));
          });
          return;
        }
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const receivedAt = Date.now();
          resolveOpened();
          this.feed(chunk, receivedAt);
        });
        res.on('error', (error) => this.fail(error));
        res.on('close', () => {
          this.closed = true;
          if (!this.stopping && !this.error) this.error = new Error('the server closed the stream');
          rejectOpened(this.error ?? new Error('closed'));
        });
      },
    );
    this.req.on('error', (error) => {
      this.fail(error);
      rejectOpened(error);
    });
    this.req.end();
  }

  private fail(error: Error) {
    if (this.stopping) return;
    this.error ??= error;
    this.closed = true;
  }

  private feed(chunk: string, receivedAt: number) {
    this.buffer += chunk;
    let start = 0;
    for (;;) {
      const end = this.buffer.indexOf('\n', start);
      if (end === -1) break;
      const line =
        end > start && this.buffer.charCodeAt(end - 1) === 13
          ? this.buffer.slice(start, end - 1)
          : this.buffer.slice(start, end);
      start = end + 1;
      this.line(line, receivedAt);
    }
    this.buffer = start === 0 ? this.buffer : this.buffer.slice(start);
  }

  private line(line: string, receivedAt: number) {
    if (line === '') {
      if (this.data.length > 0) {
        this.events += 1;
        this.options.onEvent({
          id: this.id,
          event: this.event || 'message',
          data: this.data.join('\n'),
          receivedAt,
        });
      }
      this.id = null;
      this.event = '';
      this.data = [];
      return;
    }
    if (line.charCodeAt(0) === 58 /* ':' */) {
      this.comments += 1;
      return;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id') this.id = value;
    // `retry:` and unknown fields are ignored.
  }

  /** Ends the stream from our side (not counted as an error). */
  close(): void {
    this.stopping = true;
    this.closed = true;
    this.req.destroy();
  }
}
