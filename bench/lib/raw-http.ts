import net from 'node:net';

/** An answer read by a RawHttpConnection. */
export interface RawAnswer {
  status: number;
  /** Header names in lower case; a repeated header keeps its last value. */
  headers: Record<string, string>;
  body: Buffer;
}

const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');
const MAX_HEAD_BYTES = 64 * 1024;

interface Pending {
  resolve: (answer: RawAnswer) => void;
  reject: (error: Error) => void;
  /** HEAD, or a status without a body (1xx, 204, 304). */
  noBody: boolean;
}

/**
 * One keep-alive HTTP/1.1 connection to 127.0.0.1 that sends a request, reads its answer, and sends
 * the next: a closed-loop client of the load generator, written on a bare socket as wrk and
 * autocannon are. The bench runs 50 of them in one process beside the server on two cores, and
 * Node's client (a ClientRequest, its header handling, the parser, a response stream per answer)
 * cost about as much CPU per request as the server's answer did; CPU the server then waited for.
 * The requests on the wire are what `node:http` sends for the same headers; answers are read in
 * full (Content-Length or chunked).
 */
export class RawHttpConnection {
  private socket!: net.Socket;
  private ready!: Promise<void>;
  private raw: Buffer = Buffer.alloc(0);
  private pending: Pending | null = null;
  /** Why the socket failed; null while it is open. An idle socket the server closed is reopened. */
  private failure: Error | null = null;
  private closing = false;

  // Per answer being read.
  private head: { status: number; headers: Record<string, string> } | null = null;
  private bodyLeft = 0;
  private chunked = false;
  private chunkLeft = -1;
  private body: Buffer[] = [];

  constructor(readonly port: number) {
    this.connect();
  }

  private connect() {
    const socket = net.connect({ host: '127.0.0.1', port: this.port, noDelay: true });
    this.socket = socket;
    this.failure = null;
    this.raw = Buffer.alloc(0);
    this.head = null;
    this.ready = new Promise((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('error', reject);
    });
    this.ready.catch(() => undefined);
    // A replaced socket's late events are not this connection's any more.
    socket.on('data', (chunk: Buffer) => {
      if (this.socket === socket) this.read(chunk);
    });
    socket.on('error', (error) => {
      if (this.socket === socket) this.fail(error);
    });
    socket.on('close', () => {
      if (this.socket === socket) this.fail(new Error('the server closed the connection'));
    });
  }

  /** Sends one request (`headers` as given, plus Host and Content-Length) and reads its answer. */
  async request(
    method: string,
    path: string,
    headers: Record<string, string> = {},
    body?: string,
  ): Promise<RawAnswer> {
    if (this.pending) throw new Error('one request at a time on a connection');
    // The server drops a keep-alive connection idle past its timeout (5 s): open another.
    if (this.failure && !this.closing) this.connect();
    await this.ready;
    if (this.failure) throw this.failure;
    let text = `${method} ${path} HTTP/1.1\r\nhost: 127.0.0.1:${this.port}\r\nconnection: keep-alive\r\n`;
    for (const name in headers) text += `${name}: ${headers[name]}\r\n`;
    if (body !== undefined) text += `content-length: ${Buffer.byteLength(body)}\r\n`;
    text += `\r\n${body ?? ''}`;
    return new Promise<RawAnswer>((resolve, reject) => {
      this.pending = { resolve, reject, noBody: method === 'HEAD' };
      this.socket.write(text);
    });
  }

  close(): void {
    this.closing = true;
    this.socket.destroy();
  }

  private fail(error: Error) {
    this.failure ??= error;
    const pending = this.pending;
    this.pending = null;
    pending?.reject(error);
  }

  private read(chunk: Buffer) {
    this.raw = this.raw.length === 0 ? chunk : Buffer.concat([this.raw, chunk]);
    let at = 0;
    while (at < this.raw.length) {
      if (!this.head) {
        const end = this.raw.indexOf(HEAD_END, at);
        if (end === -1) {
          if (this.raw.length - at > MAX_HEAD_BYTES) this.socket.destroy(new Error('answer head too large'));
          break;
        }
        const lines = this.raw.subarray(at, end).toString('latin1').split('\r\n');
        at = end + HEAD_END.length;
        const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0);
        const headers: Record<string, string> = {};
        for (let i = 1; i < lines.length; i++) {
          const line = lines[i] as string;
          const colon = line.indexOf(':');
          if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
        }
        this.head = { status, headers };
        this.body = [];
        this.chunked = /\bchunked\b/i.test(headers['transfer-encoding'] ?? '');
        this.chunkLeft = -1;
        const noBody = this.pending?.noBody || status === 204 || status === 304 || status < 200;
        this.bodyLeft = noBody || this.chunked ? 0 : Number(headers['content-length'] ?? 0);
        if (noBody) this.chunked = false;
        if (!this.chunked && this.bodyLeft === 0) this.done();
        continue;
      }
      if (!this.chunked) {
        const take = Math.min(this.bodyLeft, this.raw.length - at);
        this.body.push(this.raw.subarray(at, at + take));
        at += take;
        this.bodyLeft -= take;
        if (this.bodyLeft === 0) this.done();
        continue;
      }
      if (this.chunkLeft === -1) {
        const lineEnd = this.raw.indexOf(CRLF, at);
        if (lineEnd === -1) break;
        const size = Number.parseInt(this.raw.subarray(at, lineEnd).toString('latin1'), 16);
        if (Number.isNaN(size)) {
          this.socket.destroy(new Error('bad chunk size'));
          return;
        }
        if (size === 0) {
          // The last chunk and the CRLF that ends the (empty) trailer.
          if (this.raw.length - lineEnd < 4) break;
          at = lineEnd + 4;
          this.done();
          continue;
        }
        at = lineEnd + CRLF.length;
        this.chunkLeft = size;
      }
      const take = Math.min(this.chunkLeft, this.raw.length - at);
      this.body.push(this.raw.subarray(at, at + take));
      at += take;
      this.chunkLeft -= take;
      if (this.chunkLeft > 0 || this.raw.length - at < CRLF.length) break;
      at += CRLF.length;
      this.chunkLeft = -1;
    }
    this.raw = at >= this.raw.length ? Buffer.alloc(0) : this.raw.subarray(at);
  }

  private done() {
    const head = this.head;
    const pending = this.pending;
    this.head = null;
    this.pending = null;
    if (!head || !pending) return;
    const body = this.body.length === 1 ? (this.body[0] as Buffer) : Buffer.concat(this.body);
    this.body = [];
    pending.resolve({ status: head.status, headers: head.headers, body });
  }
}
