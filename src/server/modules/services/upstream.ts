import type { ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { atEndOfTurn } from '@/server/lib/end-of-turn.js';
import { KeyedQueue } from '@/server/lib/keyed-queue.js';
import type { Logger } from '@/server/lib/logger.js';
import type { Endpoint } from '../sandbox/sandbox.js';
import { answeredHeaders, endpointKey, type ForwardOptions } from './forward-headers.js';
import { proxyErrorAnswer } from './proxy-errors.js';
import { connectOptions } from './readiness.js';
import { ResponseParser } from './response-parser.js';

/**
 * The service proxy's own HTTP/1.1 client for requests without a body to a service's plain-HTTP
 * port — every page, script and image a browser loads. Node's client costs about as much CPU per
 * request as the app's server side does; this one writes the request in one piece on a kept-alive
 * connection and relays the answer as `ResponseParser` decodes it, with no per-request listeners.
 */

/** An idle connection is closed after this long, before a node service's own 5 s would. */
const IDLE_MS = 4_000;
/** Idle connections kept per service; more are closed once their answer is done. */
const MAX_IDLE = 256;
/**
 * Connections open to one service at once, busy or idle (as node's agent for the other requests,
 * `maxSockets`): past them a request waits for one to be free, in the order they came, so that a
 * burst of requests (a page of 500 images, a reload storm) cannot open a connection each to a dev
 * server.
 */
const MAX_CONNECTIONS = 256;

/** A kept-alive connection to one service; its listeners stay for its whole life. */
class Connection {
  readonly socket: Socket;
  /** The request it carries, or null while idle. */
  exchange: Exchange | null = null;
  /** It carried an answer before: a request on it may meet the service's close of an idle connection. */
  reused = false;

  constructor(
    readonly pool: UpstreamPool,
    readonly key: string,
    endpoint: Endpoint,
  ) {
    const socket = connect({ ...connectOptions(endpoint), noDelay: true });
    this.socket = socket;
    socket.setTimeout(IDLE_MS);
    socket.on('data', (chunk: Buffer) => {
      if (this.exchange) this.exchange.onData(chunk);
      else socket.destroy(); // Bytes nobody asked for: the connection is out of step.
    });
    socket.on('error', (error) => this.exchange?.onError(error));
    socket.on('close', () => {
      const exchange = this.exchange;
      this.exchange = null;
      pool.closed(this);
      // A retry on a new connection takes the freed place first; requests waiting take what is left.
      exchange?.onClose();
      pool.dispatch(key);
    });
    socket.on('timeout', () => {
      if (!this.exchange) socket.destroy();
    });
  }
}

/** One request and its answer, relayed to the client's response. */
class Exchange {
  private connection: Connection | null = null;
  private parser: ResponseParser;
  private error: Error | null = null;
  /** The answer is complete; `reusable` when its connection may carry another request. */
  private finished = false;
  private reusable = false;
  private retried = false;
  private sent = false;

  constructor(
    private readonly pool: UpstreamPool,
    readonly key: string,
    private readonly head: string,
    private readonly noBody: boolean,
    private readonly res: ServerResponse,
    readonly options: ForwardOptions,
    private readonly accept: string | undefined,
  ) {
    this.parser = this.newParser();
  }

  private newParser(): ResponseParser {
    const res = this.res;
    return new ResponseParser(this.noBody, {
      head: (status, statusMessage, rawHeaders) => {
        res.writeHead(status, statusMessage || undefined, answeredHeaders(rawHeaders, this.options));
      },
      data: (chunk) => {
        if (res.write(chunk)) return;
        const socket = this.connection?.socket;
        if (!socket) return;
        socket.pause();
        res.once('drain', () => socket.resume());
      },
      end: (reusable) => {
        this.finished = true;
        this.reusable = reusable;
        res.end();
      },
    });
  }

  /**
   * Sends the request on `connection` at the end of this turn of the event loop, so that a turn's
   * requests reach a service in one burst, not a wake-up of it per request between the proxy's
   * reads. A connection closed meanwhile is its close handler's to retry or answer.
   */
  start(connection: Connection): void {
    this.sent = true;
    this.connection = connection;
    connection.exchange = this;
    const { socket } = connection;
    atEndOfTurn(() => {
      if (!socket.destroyed && connection.exchange === this) socket.write(this.head, 'latin1');
    });
  }

  /** Still waiting for a connection: not sent yet. */
  get waiting(): boolean {
    return !this.finished && this.connection === null && !this.sent;
  }

  /** The client went away: the service's request is dropped (its connection with it), or never sent. */
  abort(): void {
    if (this.finished) return;
    if (this.waiting) this.pool.unqueue(this.key, this);
    this.finished = true;
    const connection = this.detach();
    connection?.socket.destroy();
  }

  onData(chunk: Buffer): void {
    try {
      this.parser.execute(chunk);
    } catch (error) {
      // A complete answer followed by stray bytes: the answer stands, the connection goes.
      if (!this.finished) {
        this.fail(error as Error, false);
        return;
      }
      this.reusable = false;
    }
    if (!this.finished) return;
    const connection = this.detach();
    if (!connection) return;
    if (this.reusable) this.pool.release(connection);
    else connection.socket.destroy();
  }

  onError(error: Error): void {
    this.error = error;
  }

  /** The connection closed under the request. */
  onClose(): void {
    const connection = this.connection;
    this.connection = null;
    if (this.finished) return;
    try {
      this.parser.finish(); // an answer delimited by the connection's end
      return;
    } catch {
      // cut short: below
    }
    // A kept-alive connection the service closed just as this request went out: once more, on a
    // new one (requests here have no body and a safe method, so sending one twice is harmless).
    if (connection?.reused && !this.parser.started && !this.retried) {
      this.retried = true;
      this.error = null;
      this.parser = this.newParser();
      this.start(this.pool.connect(this.key, this.options));
      return;
    }
    this.fail(
      this.error ?? Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
      !connection?.reused && !this.parser.started,
    );
  }

  private detach(): Connection | null {
    const connection = this.connection;
    this.connection = null;
    if (connection) connection.exchange = null;
    return connection;
  }

  /** `fresh`: the connection was new and never answered (a refusal, over a bridge into a sandbox). */
  private fail(error: Error, fresh: boolean): void {
    this.finished = true;
    this.detach()?.socket.destroy();
    this.pool.logger.debug('service proxy error', { error });
    const res = this.res;
    // Already answering (a service that broke off its answer breaks off the client's), or the
    // client went away: nothing to tell.
    if (res.headersSent || res.destroyed) {
      res.destroy();
      return;
    }
    const answer = proxyErrorAnswer(error, this.options.target, this.accept, fresh);
    res.writeHead(answer.status, answer.headers).end(answer.body);
  }
}

/** Methods sent this way: safe ones, so that a request met by a closing connection can be sent again. */
const METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** What node's client refuses in a request target. */
const INVALID_PATH = /[^\u0021-\u00ff]/;

/** The kept-alive connections to services, by where they go (`endpointKey`). */
export class UpstreamPool {
  private readonly idle = new Map<string, Connection[]>();
  /** Connections open per service, busy or idle. */
  private readonly open = new Map<string, number>();
  /** Requests waiting for a connection per service, oldest first. */
  private readonly queue = new KeyedQueue<string, Exchange>();

  constructor(
    readonly logger: Logger,
    private readonly maxConnections = MAX_CONNECTIONS,
  ) {}

  /** True when this client sends the request (`send`); node's client sends any other. */
  handles(method: string, path: string, options: ForwardOptions): boolean {
    return options.target.protocol === 'http' && METHODS.has(method) && !INVALID_PATH.test(path);
  }

  /**
   * Sends a request without a body; its answer goes to `res`, or an error answer (503 when
   * nothing listens, 502 otherwise). `headers` is a flat list of names and values.
   */
  send(
    method: string,
    headers: readonly string[],
    accept: string | undefined,
    res: ServerResponse,
    options: ForwardOptions,
  ): void {
    let head = `${method} ${options.path} HTTP/1.1\r\n`;
    for (let i = 0; i < headers.length; i += 2) head += `${headers[i]}: ${headers[i + 1]}\r\n`;
    head += 'connection: keep-alive\r\n\r\n';
    const key = endpointKey(options.target);
    const exchange = new Exchange(this, key, head, method === 'HEAD', res, options, accept);
    // A client that goes away mid-answer: the service's request is dropped too.
    res.on('close', () => {
      if (!res.writableFinished) exchange.abort();
    });
    const connection =
      this.idle.get(key)?.pop() ??
      ((this.open.get(key) ?? 0) < this.maxConnections ? this.connect(key, options) : null);
    if (connection) {
      exchange.start(connection);
      return;
    }
    this.queue.push(key, exchange);
  }

  /** A new connection to the target of `options`. */
  connect(key: string, options: ForwardOptions): Connection {
    this.open.set(key, (this.open.get(key) ?? 0) + 1);
    return new Connection(this, key, options.target.endpoint);
  }

  /** A request waiting for a connection whose client went away. */
  unqueue(key: string, exchange: Exchange): void {
    this.queue.remove(key, exchange);
  }

  /** Requests waiting for the service get new connections while there is room for them. */
  dispatch(key: string): void {
    while ((this.open.get(key) ?? 0) < this.maxConnections) {
      const next = this.queue.shift(key);
      if (!next) return;
      next.start(this.connect(key, next.options));
    }
  }

  /** A connection whose answer is done: the next waiting request's, or kept for the next to come. */
  release(connection: Connection): void {
    connection.reused = true;
    connection.socket.resume();
    const next = this.queue.shift(connection.key);
    if (next) {
      next.start(connection);
      return;
    }
    let idle = this.idle.get(connection.key);
    if (!idle) {
      idle = [];
      this.idle.set(connection.key, idle);
    }
    if (idle.length >= MAX_IDLE) connection.socket.destroy();
    else idle.push(connection);
  }

  /** A closed connection leaves the open ones (and the idle ones). */
  closed(connection: Connection): void {
    const open = (this.open.get(connection.key) ?? 1) - 1;
    if (open > 0) this.open.set(connection.key, open);
    else this.open.delete(connection.key);
    const idle = this.idle.get(connection.key);
    const index = idle?.indexOf(connection) ?? -1;
    if (!idle || index === -1) return;
    idle.splice(index, 1);
    if (idle.length === 0) this.idle.delete(connection.key);
  }

  close(): void {
    for (const idle of this.idle.values()) for (const connection of idle) connection.socket.destroy();
    this.idle.clear();
    this.queue.clear();
  }
}
