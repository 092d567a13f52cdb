import net from 'node:net';
import { StringDecoder } from 'node:string_decoder';

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

const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');
/** A response head larger than this is not what our server sends. */
const MAX_HEAD_BYTES = 64 * 1024;

/**
 * A text/event-stream reader on its own TCP connection: an HTTP/1.1 GET written by hand, the
 * response head and its chunked body decoded here, and the stream parsed by WHATWG rules
 * (`field: value` lines, a blank line dispatches, lines starting with ':' are comments, one
 * leading space after the colon is dropped; lines end with "\n" or "\r\n").
 *
 * Written on a bare socket rather than `node:http` because the bench runs a thousand of these in
 * one process beside the server on the same cores: Node's client (its parser, the response stream,
 * a `data` event per chunk) cost about a third of what reading the events cost, CPU the server
 * under test then waited for. The bytes read and the events dispatched are the same.
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

  private readonly socket: net.Socket;
  private resolveOpened: () => void = () => {};
  private rejectOpened: (error: Error) => void = () => {};
  private stopping = false;
  /** Bytes of the response not yet consumed: the head, then chunk framing. */
  private raw: Buffer = Buffer.alloc(0);
  private headRead = false;
  private chunked = false;
  /** Bytes of the current chunk's data still to come (chunked), or -1 between chunks. */
  private chunkLeft = -1;
  private readonly decoder = new StringDecoder('utf8');
  private buffer = '';
  private id: string | null = null;
  private event = '';
  private data: string[] = [];
  /** A non-200's body, for the error, and its declared length. */
  private errorBody = '';
  private errorBytesLeft = Number.POSITIVE_INFINITY;

  constructor(private readonly options: SseClientOptions) {
    this.opened = new Promise<void>((resolve, reject) => {
      this.resolveOpened = resolve;
      this.rejectOpened = reject;
    });
    // Unhandled if nobody awaits it before a failure; the failure stays in `error`.
    this.opened.catch(() => undefined);

    const headers = {
      host: `127.0.0.1:${options.port}`,
      accept: 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      ...options.headers,
    };
    const head = `GET ${options.path} HTTP/1.1\r\n${Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('')}\r\n`;
    this.socket = net.connect({ host: '127.0.0.1', port: options.port, noDelay: true });
    this.socket.on('connect', () => this.socket.write(head));
    this.socket.on('data', (chunk: Buffer) => this.read(chunk, Date.now()));
    this.socket.on('error', (error) => this.fail(error));
    this.socket.on('close', () => {
      if (this.status !== 0 && this.status !== 200) this.refused();
      this.closed = true;
      if (!this.stopping && !this.error) this.error = new Error('the server closed the stream');
      this.rejectOpened(this.error ?? new Error('closed'));
    });
  }

  private fail(error: Error) {
    if (this.stopping) return;
    this.error ??= error;
    this.closed = true;
    this.rejectOpened(error);
  }

  private read(chunk: Buffer, receivedAt: number) {
    if (!this.headRead) {
      this.raw = this.raw.length === 0 ? chunk : Buffer.concat([this.raw, chunk]);
      const end = this.raw.indexOf(HEAD_END);
      if (end === -1) {
        if (this.raw.length > MAX_HEAD_BYTES) this.abort(new Error('response head too large'));
        return;
      }
      const head = this.raw.subarray(0, end).toString('latin1');
      const rest = this.raw.subarray(end + HEAD_END.length);
      this.raw = Buffer.alloc(0);
      this.headRead = true;
      const lines = head.split('\r\n');
      this.status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0);
      this.chunked = lines.some((line) => /^transfer-encoding:\s*chunked\s*$/i.test(line));
      if (this.status !== 200) {
        const length = lines.find((line) => /^content-length:/i.test(line))?.split(':')[1];
        if (length !== undefined) this.errorBytesLeft = Number(length);
        if (this.errorBytesLeft === 0) this.refused();
      }
      if (rest.length === 0) return;
      chunk = rest;
    }
    if (!this.chunked) {
      this.body(chunk, receivedAt);
      return;
    }
    this.raw = this.raw.length === 0 ? chunk : Buffer.concat([this.raw, chunk]);
    let at = 0;
    while (at < this.raw.length) {
      if (this.chunkLeft === -1) {
        const lineEnd = this.raw.indexOf(CRLF, at);
        if (lineEnd === -1) break;
        const size = Number.parseInt(this.raw.subarray(at, lineEnd).toString('latin1'), 16);
        if (Number.isNaN(size)) {
          this.abort(new Error('bad chunk size'));
          return;
        }
        at = lineEnd + CRLF.length;
        if (size === 0) {
          // The last chunk: the server ended the body.
          this.raw = Buffer.alloc(0);
          this.socket.end();
          return;
        }
        this.chunkLeft = size;
      }
      const take = Math.min(this.chunkLeft, this.raw.length - at);
      if (take > 0) {
        this.body(this.raw.subarray(at, at + take), receivedAt);
        at += take;
        this.chunkLeft -= take;
      }
      if (this.chunkLeft > 0) break;
      // The chunk's data is done: its CRLF follows.
      if (this.raw.length - at < CRLF.length) break;
      at += CRLF.length;
      this.chunkLeft = -1;
    }
    this.raw = at >= this.raw.length ? Buffer.alloc(0) : this.raw.subarray(at);
  }

  private body(bytes: Buffer, receivedAt: number) {
    const text = this.decoder.write(bytes);
    if (this.status !== 200) {
      this.errorBody += text;
      this.errorBytesLeft -= bytes.length;
      if (this.errorBytesLeft <= 0) this.refused();
      return;
    }
    this.resolveOpened();
    this.feed(text, receivedAt);
  }

  private feed(text: string, receivedAt: number) {
    this.buffer = this.buffer.length === 0 ? text : this.buffer + text;
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
          data: this.data.length === 1 ? (this.data[0] as string) : this.data.join('\n'),
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

  /** A whole non-200 answer: the stream was refused. */
  private refused() {
    this.abort(
      new Error(`GET ${this.options.path} answered ${this.status}: ${this.errorBody.slice(0, 300)}`),
    );
  }

  private abort(error: Error) {
    this.fail(error);
    this.socket.destroy();
  }

  /** Ends the stream from our side (not counted as an error). */
  close(): void {
    this.stopping = true;
    this.closed = true;
    this.socket.destroy();
  }
}
