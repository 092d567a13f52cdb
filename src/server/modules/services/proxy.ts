import {
  type ClientRequest,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Duplex } from 'node:stream';
import { ProxyServer } from 'http-proxy-3';
import type { Logger } from '@/server/lib/logger.js';
import {
  answeredHeaders,
  CREDENTIAL_HEADERS,
  type ForwardOptions,
  forwardedHeaders,
  hostOf,
  setsOwnCookie,
  withoutCookies,
} from './forward-headers.js';
import { proxyErrorAnswer, upgradeErrorAnswer } from './proxy-errors.js';
import { UpstreamPool } from './upstream.js';

export type { ForwardOptions } from './forward-headers.js';

/** Rewrites the request's headers for the service: credentials out, forwarding headers in, Host = the service. */
function prepare(req: IncomingMessage, options: ForwardOptions): void {
  const headers = req.headers;
  for (const name of CREDENTIAL_HEADERS) delete headers[name];
  const cookie = withoutCookies(headers.cookie, options.stripCookies);
  if (cookie === undefined) delete headers.cookie;
  else headers.cookie = cookie;
  const forwardedFor = headers['x-forwarded-for'];
  headers['x-forwarded-for'] = forwardedFor ? `${forwardedFor}, ${options.clientIp}` : options.clientIp;
  headers['x-forwarded-host'] = options.forwardedHost;
  headers['x-forwarded-proto'] = options.proto;
  headers.host = hostOf(options.target);
  req.url = options.path;
}

/** A request without Content-Length or Transfer-Encoding has no body (RFC 9112 §6.3). */
const hasBody = (req: IncomingMessage) =>
  req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;

/**
 * The reverse proxy to services: streams bodies both ways, never follows a redirect, and keeps
 * connections to services alive. Requests lose AutoCoder's credentials; answers may not set
 * AutoCoder's cookies. HTTP requests are forwarded with node's own client (about 80 µs of CPU
 * less per request than http-proxy-3 here), with headers copied as flat lists from the raw ones;
 * Upgrade requests (WebSockets) go through http-proxy-3.
 */
export class ServiceProxy {
  private readonly proxy = new ProxyServer({ xfwd: false, followRedirects: false, secure: false });
  /** The cookies an Upgrade's answer may not set, per request (read back in `proxyReqWs`). */
  private readonly upgradeCookies = new WeakMap<IncomingMessage, readonly string[]>();
  /** Requests without a body to a plain-HTTP service: the proxy's own client (`upstream.ts`). */
  private readonly upstream: UpstreamPool;
  private readonly httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 256 });
  private readonly httpsAgent = new HttpsAgent({
    keepAlive: true,
    maxSockets: 256,
    rejectUnauthorized: false,
  });

  constructor(private readonly logger: Logger) {
    this.upstream = new UpstreamPool(logger);
    // Errors are answered per request (below); this keeps an unexpected one from throwing.
    this.proxy.on('error', (error) => this.logger.debug('service proxy error', { error }));
    // http-proxy-3 writes the service's answer to an Upgrade (its 101, or any other answer) itself:
    // its Set-Cookie is filtered first, as for HTTP, so a service never sets AutoCoder's cookies.
    this.proxy.on('proxyReqWs', (proxyReq: ClientRequest, req: IncomingMessage) => {
      const strip = this.upgradeCookies.get(req);
      if (!strip) return;
      const filter = (answer: IncomingMessage) => dropOwnCookies(answer.headers, strip);
      proxyReq.prependListener('upgrade', filter);
      proxyReq.prependListener('response', filter);
    });
  }

  /** Forwards an HTTP request; a service that cannot be reached gets a 503 (refused) or 502 answer. */
  web(req: IncomingMessage, res: ServerResponse, options: ForwardOptions): void {
    const method = req.method ?? 'GET';
    if (!hasBody(req) && this.upstream.handles(method, options.path, options)) {
      this.upstream.send(method, forwardedHeaders(req, options), req.headers.accept, res, options);
      return;
    }
    const { target } = options;
    const https = target.protocol === 'https';
    const { endpoint } = target;
    const upstream = (https ? httpsRequest : httpRequest)({
      ...('socketPath' in endpoint
        ? { socketPath: endpoint.socketPath }
        : { host: endpoint.host, port: endpoint.port }),
      method: req.method,
      path: options.path,
      headers: forwardedHeaders(req, options),
      agent: https ? this.httpsAgent : this.httpAgent,
    });
    upstream.on('error', (error) => {
      this.logger.debug('service proxy error', { error });
      // Already answering, or the client went away (which dropped this request): nothing to tell.
      if (res.headersSent || res.destroyed) {
        res.destroy();
        return;
      }
      const answer = proxyErrorAnswer(error, target, req.headers.accept, !upstream.reusedSocket);
      res.writeHead(answer.status, answer.headers).end(answer.body);
    });
    upstream.on('response', (answer: IncomingMessage) => {
      res.writeHead(
        answer.statusCode ?? 502,
        answer.statusMessage,
        answeredHeaders(answer.rawHeaders, options),
      );
      // Streamed as it comes, paused while the client's socket is full (what `pipe` does, with
      // fewer listeners to add and remove per request).
      answer.on('data', (chunk: Buffer) => {
        if (res.write(chunk)) return;
        answer.pause();
        res.once('drain', () => answer.resume());
      });
      answer.on('end', () => res.end());
      // A service that breaks off its answer breaks off the client's.
      answer.on('error', () => res.destroy());
    });
    // A client that goes away mid-answer: the service's request is dropped too.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    if (hasBody(req)) req.pipe(upstream);
    else upstream.end();
  }

  /** Carries an Upgrade request (a WebSocket) through to the service. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, options: ForwardOptions): void {
    prepare(req, options);
    this.upgradeCookies.set(req, options.stripCookies);
    const { target } = options;
    const { endpoint } = target;
    this.proxy.ws(
      req,
      socket,
      head,
      {
        // http-proxy-3 hands `socketPath` to node's client, which then connects there; host and
        // port name the service's side (the Host header is set in `prepare`).
        target: {
          protocol: target.protocol === 'https' ? 'wss:' : 'ws:',
          ...('socketPath' in endpoint
            ? { host: target.host, port: target.port, socketPath: endpoint.socketPath }
            : { host: endpoint.host, port: endpoint.port }),
        },
      },
      (error) => {
        // Each Upgrade has a connection of its own (no agent): one that ends unanswered is new.
        if (socket.writable) socket.end(upgradeErrorAnswer(proxyErrorAnswer(error, target, undefined, true)));
        else socket.destroy();
      },
    );
  }

  close(): void {
    this.upstream.close();
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

/** Removes the Set-Cookie lines of an answer that name one of AutoCoder's own cookies. */
function dropOwnCookies(headers: IncomingHttpHeaders, own: readonly string[]): void {
  const setCookie = headers['set-cookie'];
  if (setCookie) headers['set-cookie'] = setCookie.filter((value) => !setsOwnCookie(value, own));
}
