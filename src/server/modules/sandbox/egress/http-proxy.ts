import http from 'node:http';
import type { Socket } from 'node:net';
import { type Dialer, type DialResult, describeFailure } from './egress-dial.js';
import { splice } from './tunnel.js';

export interface HttpProxyLimits {
  /** Largest request head (request line and headers), in bytes: past it, 431 and the end. */
  maxHeadBytes: number;
  /** Time to receive a whole request head, in ms: past it, 408 and the end (slowloris). */
  headTimeoutMs: number;
  /** A tunnel or a forwarded request with no traffic for this long is cut. */
  idleTimeoutMs: number;
}

/**
 * The HTTP proxy of a sandbox: CONNECT for https (and any TCP a client tunnels through CONNECT),
 * and absolute-form requests (`GET http://host/path`) for plain http. node:http parses, bounds and
 * keeps the sandbox's side alive; every upstream connection comes from `dial` and carries one
 * request (`Connection: close`), so no upstream connection outlives the request it was checked for.
 */
export function createHttpProxyServer(dialer: Dialer, limits: HttpProxyLimits): http.Server {
  const server = http.createServer({
    maxHeaderSize: limits.maxHeadBytes,
    headersTimeout: limits.headTimeoutMs,
    requestTimeout: 0,
    // How often node:http looks for heads past their time: often enough for the limit to mean something.
    connectionsCheckingInterval: Math.max(5, Math.min(1000, Math.floor(limits.headTimeoutMs / 4))),
  });
  server.timeout = limits.idleTimeoutMs;
  server.on('connect', (req: http.IncomingMessage, socket: Socket, head: Buffer) => {
    void tunnel(dialer, limits, req, socket, head);
  });
  server.on('request', (req, res) => void forward(dialer, limits, req, res));
  return server;
}

async function tunnel(
  dialer: Dialer,
  limits: HttpProxyLimits,
  req: http.IncomingMessage,
  socket: Socket,
  head: Buffer,
): Promise<void> {
  // Whatever the client sends before the answer (an eager TLS hello) waits for the upstream.
  socket.pause();
  socket.on('error', () => socket.destroy());
  const target = parseAuthority(req.url ?? '');
  if (!target) return refuse(socket, 400, 'Bad Request', 'CONNECT needs host:port');
  const result = await dialer(target.host, target.port);
  if (socket.destroyed) {
    if (result.ok) result.socket.destroy();
    return;
  }
  if (!result.ok) {
    const [status, text] = statusOf(result);
    return refuse(socket, status, text, describeFailure(result, target.port));
  }
  socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
  if (head.length > 0) result.socket.write(head);
  splice(socket, result.socket, limits.idleTimeoutMs);
}

async function forward(
  dialer: Dialer,
  limits: HttpProxyLimits,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  const url = URL.canParse(req.url ?? '') ? new URL(req.url ?? '') : null;
  if (url?.protocol !== 'http:') {
    return answer(res, 400, 'this proxy forwards http://host/... requests; use CONNECT for anything else');
  }
  const port = Number(url.port || 80);
  const result = await dialer(url.hostname, port);
  if (!result.ok) return answer(res, statusOf(result)[0], describeFailure(result, port));
  const upstream = result.socket;
  if (res.destroyed) return void upstream.destroy();
  upstream.setTimeout(limits.idleTimeoutMs, () => upstream.destroy());
  res.on('close', () => upstream.destroy());
  const outgoing = http.request({
    createConnection: () => upstream,
    method: req.method,
    path: `${url.pathname}${url.search}`,
    headers: [...forwardHeaders(req.rawHeaders, false), 'Host', url.host, 'Connection', 'close'],
    setHost: false,
  });
  outgoing.on('response', (incoming) => {
    res.writeHead(
      incoming.statusCode ?? 502,
      incoming.statusMessage,
      forwardHeaders(incoming.rawHeaders, true),
    );
    incoming.pipe(res);
    incoming.on('error', () => res.destroy());
  });
  outgoing.on('error', () => {
    if (res.headersSent) res.destroy();
    else answer(res, 502, `${url.host} closed the connection before answering`);
  });
  req.pipe(outgoing);
}

/** Hop-by-hop headers (RFC 9110 §7.6.1), the proxy's own, and `Host` (set from the URL). */
const NOT_FORWARDED = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** A raw header list without hop-by-hop headers, nor those the `Connection` header names. */
export function forwardHeaders(raw: readonly string[], keepHost: boolean): string[] {
  const named = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]?.toLowerCase() !== 'connection') continue;
    for (const token of (raw[i + 1] ?? '').split(',')) named.add(token.trim().toLowerCase());
  }
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] ?? '';
    const lower = name.toLowerCase();
    if (NOT_FORWARDED.has(lower) || named.has(lower) || (!keepHost && lower === 'host')) continue;
    out.push(name, raw[i + 1] ?? '');
  }
  return out;
}

/** `host:port` or `[v6]:port` (a CONNECT target), or null. */
export function parseAuthority(text: string): { host: string; port: number } | null {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text);
  if (!match) return null;
  return { host: match[1] ?? match[2] ?? '', port: Number(match[3]) };
}

function statusOf(result: Extract<DialResult, { ok: false }>): [number, string] {
  if (result.failure === 'not-allowed' || result.failure === 'private-address') return [403, 'Forbidden'];
  if (result.failure === 'bad-target') return [400, 'Bad Request'];
  return [502, 'Bad Gateway'];
}

function refuse(socket: Socket, status: number, text: string, message: string): void {
  const body = `${message}\n`;
  socket.setTimeout(5000, () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  socket.resume();
}

function answer(res: http.ServerResponse, status: number, message: string): void {
  if (res.headersSent) return void res.destroy();
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' });
  res.end(`${message}\n`);
}
