/**
 * An incremental parser of HTTP/1.1 answers (RFC 9112), for the service proxy's own keep-alive
 * connections: the status line and headers as they were sent, then the body decoded from its
 * framing (Content-Length, chunked, or up to the end of the connection), handed on as it comes.
 */

/** What the parser hands on, in order: one `head`, any number of `data`, then `end`. */
export interface AnswerSink {
  head(status: number, statusMessage: string, rawHeaders: string[]): void;
  data(chunk: Buffer): void;
  /** The answer is complete; `reusable` when the connection may carry another request. */
  end(reusable: boolean): void;
}

/** The answer does not parse: the connection cannot be trusted any more. */
export class AnswerParseError extends Error {
  override readonly name = 'AnswerParseError';
  readonly code = 'HPE_INVALID_ANSWER';
}

/** A status line and headers larger than this are refused (node's own default limit is 16 KiB). */
export const MAX_HEAD_BYTES = 64 * 1024;

type State = 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailers' | 'close' | 'done';

const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: (.*))?$/;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const CHUNK_SIZE = /^([0-9A-Fa-f]{1,15})[ \t]*(?:;.*)?$/;
const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');

const fail = (message: string): never => {
  throw new AnswerParseError(message);
};

export class ResponseParser {
  private state: State = 'head';
  /** Bytes of a head, chunk-size line or trailers not yet complete. */
  private pending: Buffer | null = null;
  /** Body bytes still to come (Content-Length), or of the current chunk. */
  private remaining = 0;
  private keepAlive = false;
  private received = false;

  /** `noBody`: the request was a HEAD, whose answer has no body whatever its headers say. */
  constructor(
    private readonly noBody: boolean,
    private readonly sink: AnswerSink,
  ) {}

  /** True once a byte of an answer has arrived (a retry would not be safe any more). */
  get started(): boolean {
    return this.received;
  }

  get done(): boolean {
    return this.state === 'done';
  }

  /** Feeds bytes from the connection; throws AnswerParseError, or on bytes after the answer. */
  execute(input: Buffer): void {
    this.received = true;
    let chunk: Buffer | null = input;
    while (chunk !== null && chunk.length > 0) chunk = this.step(chunk);
  }

  /** The connection ended: completes an answer delimited by it, or throws for a cut one. */
  finish(): void {
    if (this.state === 'close') {
      this.state = 'done';
      this.sink.end(false);
    } else if (this.state !== 'done') fail('the connection ended before the answer did');
  }

  /** Consumes what it can of `chunk`; answers the rest, or null. */
  private step(chunk: Buffer): Buffer | null {
    switch (this.state) {
      case 'head':
        return this.readHead(chunk);
      case 'length': {
        const rest = this.relay(chunk);
        if (this.remaining === 0) this.complete();
        return rest;
      }
      case 'chunk-size': {
        const line = this.line(chunk);
        if (!line) return null;
        const size = CHUNK_SIZE.exec(line.text);
        if (!size?.[1]) return fail('bad chunk size');
        this.remaining = Number.parseInt(size[1], 16);
        this.state = this.remaining === 0 ? 'trailers' : 'chunk-data';
        return line.rest;
      }
      case 'chunk-data': {
        const rest = this.relay(chunk);
        if (this.remaining === 0) this.state = 'chunk-end';
        return rest;
      }
      case 'chunk-end': {
        const line = this.line(chunk);
        if (!line) return null;
        if (line.text !== '') fail('chunk data longer than its size');
        this.state = 'chunk-size';
        return line.rest;
      }
      case 'trailers': {
        // Trailer fields are dropped (as node's client answering through `pipe` did).
        const line = this.line(chunk);
        if (!line) return null;
        if (line.text === '') this.complete();
        return line.rest;
      }
      case 'close':
        this.sink.data(chunk);
        return null;
      case 'done':
        return fail('bytes after the answer');
    }
  }

  /** Hands on up to `remaining` body bytes of `chunk`; answers what follows them, or null. */
  private relay(chunk: Buffer): Buffer | null {
    const take = Math.min(this.remaining, chunk.length);
    this.remaining -= take;
    this.sink.data(take === chunk.length ? chunk : chunk.subarray(0, take));
    return take === chunk.length ? null : chunk.subarray(take);
  }

  /** A CRLF-ended line (without it) and what follows, or null while it is incomplete. */
  private line(chunk: Buffer): { text: string; rest: Buffer } | null {
    const data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    const end = data.indexOf(CRLF);
    if (end === -1) {
      if (data.length > MAX_HEAD_BYTES) fail('line too long');
      this.pending = data;
      return null;
    }
    this.pending = null;
    return { text: data.toString('latin1', 0, end), rest: data.subarray(end + 2) };
  }

  private readHead(chunk: Buffer): Buffer | null {
    const data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    const end = data.indexOf(HEAD_END);
    if (end === -1) {
      if (data.length > MAX_HEAD_BYTES) fail('headers too large');
      this.pending = data;
      return null;
    }
    if (end > MAX_HEAD_BYTES) fail('headers too large');
    this.pending = null;
    this.parseHead(data.toString('latin1', 0, end));
    return data.subarray(end + 4);
  }

  private parseHead(head: string): void {
    const lines = head.split('\r\n');
    const status = STATUS_LINE.exec(lines[0] ?? '');
    if (!status) throw new AnswerParseError('bad status line');
    const code = Number(status[2]);
    const rawHeaders: string[] = [];
    let contentLength: number | undefined;
    let transferEncoding: string | undefined;
    let close = status[1] === '0';
    for (let i = 1; i < lines.length; i += 1) {
      const line = lines[i] as string;
      const colon = line.indexOf(':');
      const name = colon === -1 ? '' : line.slice(0, colon);
      // A folded line (obs-fold) or a name that is not a token: refused, as llhttp does.
      if (!TOKEN.test(name)) fail('bad header line');
      const value = line.slice(colon + 1).trim();
      const lower = name.toLowerCase();
      if (lower === 'content-length') {
        if (!/^\d{1,15}$/.test(value)) fail('bad content-length');
        const length = Number(value);
        if (contentLength !== undefined && contentLength !== length) fail('conflicting content-length');
        // A repeated one (same value) is passed on once: clients refuse a duplicate.
        if (contentLength !== undefined) continue;
        contentLength = length;
      }
      rawHeaders.push(name, value);
      if (lower === 'transfer-encoding') {
        transferEncoding = transferEncoding === undefined ? value : `${transferEncoding}, ${value}`;
      } else if (lower === 'connection') {
        if (/(^|,)\s*close\s*(,|$)/i.test(value)) close = true;
        // An HTTP/1.0 answer is kept alive only when it says so.
        else if (status[1] === '0' && /(^|,)\s*keep-alive\s*(,|$)/i.test(value)) close = false;
      }
    }
    // Interim answers (100 Continue, 103 Early Hints) are skipped; the final one follows.
    if (code >= 100 && code < 200) {
      if (code === 101) fail('a switch of protocols to a request without Upgrade');
      return;
    }
    this.keepAlive = !close;
    this.sink.head(code, status[3] ?? '', rawHeaders);
    if (this.noBody || code === 204 || code === 304) {
      this.complete();
      return;
    }
    if (transferEncoding !== undefined) {
      // Chunked as the last coding frames the body; any other is delimited by the connection's end.
      if (/(^|,)\s*chunked\s*$/i.test(transferEncoding)) {
        this.state = 'chunk-size';
        // With Content-Length beside it, the connection is not trusted for another request.
        if (contentLength !== undefined) this.keepAlive = false;
      } else this.closeDelimited();
      return;
    }
    if (contentLength === undefined) {
      this.closeDelimited();
      return;
    }
    this.remaining = contentLength;
    if (contentLength === 0) this.complete();
    else this.state = 'length';
  }

  private closeDelimited(): void {
    this.keepAlive = false;
    this.state = 'close';
  }

  private complete(): void {
    this.state = 'done';
    this.sink.end(this.keepAlive);
  }
}
