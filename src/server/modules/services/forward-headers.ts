import type { IncomingMessage } from 'node:http';
import type { ProxyTarget } from './proxy-target.js';

// The headers of a forwarded request and of its answer: what the service may see of the client's
// request, and what the client may see of the service's answer.

/** How one request is forwarded. */
export interface ForwardOptions {
  target: ProxyTarget;
  /** Path and query string sent to the service. */
  path: string;
  /** The Host the client addressed (x-forwarded-host). */
  forwardedHost: string;
  /** The scheme the client used (x-forwarded-proto). */
  proto: 'http' | 'https';
  /** The client's address, appended to x-forwarded-for. */
  clientIp: string;
  /** Cookies of AutoCoder's (its session, the preview grant) removed before the service sees the request. */
  stripCookies: readonly string[];
  /** Headers added to the service's answer (the path proxy's sandboxing CSP). */
  responseHeaders?: Readonly<Record<string, string>>;
}

/** Request headers that carry AutoCoder's credentials (or an agent's, or a provider key): never forwarded. */
export const CREDENTIAL_HEADERS = [
  'authorization',
  'proxy-authorization',
  'x-anthropic-key',
  'x-openai-key',
  'x-claude-code-oauth-token',
  'x-discobot-credentials',
];

/** Removes the named cookies from a Cookie header; undefined when none is left. */
export function withoutCookies(header: string | undefined, names: readonly string[]): string | undefined {
  if (!header) return undefined;
  // Most Cookie headers name none of them: kept as they are, without splitting.
  if (!names.some((name) => header.includes(name))) return header;
  const kept = header
    .split(';')
    .map((pair) => pair.trim())
    .filter(
      (pair) =>
        pair &&
        !names.includes(pair.slice(0, pair.indexOf('=') === -1 ? undefined : pair.indexOf('=')).trim()),
    );
  return kept.length > 0 ? kept.join('; ') : undefined;
}

/** The Host header for the service: the address it listens on, on its side. */
export const hostOf = ({ host, port }: ProxyTarget) =>
  host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;

/**
 * What tells one service's connections from another's: where they go. Not the Host: services in
 * sandboxes of their own may all listen on 127.0.0.1:3000. A socket path is absolute, so it never
 * reads as a host and port.
 */
export const endpointKey = ({ endpoint }: ProxyTarget) =>
  'socketPath' in endpoint ? endpoint.socketPath : `${endpoint.host}:${endpoint.port}`;

/** Which of AutoCoder's cookies a Set-Cookie would overwrite. */
export const setsOwnCookie = (value: string, names: readonly string[]) =>
  names.includes(value.slice(0, value.indexOf('=')).trim());

/**
 * Headers about one connection, not the message: each side's server and agent set their own
 * (keep-alive to the service whatever the client asked; the client's framing by its own server).
 */
export const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection'];

/** Request headers the service never gets as the client sent them (rewritten, or not at all). */
const NOT_FORWARDED = new Set([
  ...CREDENTIAL_HEADERS,
  ...HOP_BY_HOP,
  'cookie',
  'host',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
]);

/**
 * The request's headers for the service as a flat list of names and values, from its raw headers
 * (as sent, in their order; node's client writes such a list as it is): credentials and the
 * connection's own headers out, forwarding headers in, Host = the service. Same as `prepare`.
 */
export function forwardedHeaders(req: IncomingMessage, options: ForwardOptions): string[] {
  const raw = req.rawHeaders;
  const out = ['host', hostOf(options.target)];
  let cookie: string | undefined;
  let forwardedFor: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    const value = raw[i + 1] as string;
    const lower = name.toLowerCase();
    if (!NOT_FORWARDED.has(lower)) out.push(name, value);
    else if (lower === 'cookie') cookie = cookie === undefined ? value : `${cookie}; ${value}`;
    else if (lower === 'x-forwarded-for')
      forwardedFor = forwardedFor === undefined ? value : `${forwardedFor}, ${value}`;
  }
  out.push(
    'x-forwarded-for',
    forwardedFor ? `${forwardedFor}, ${options.clientIp}` : options.clientIp,
    'x-forwarded-host',
    options.forwardedHost,
    'x-forwarded-proto',
    options.proto,
  );
  const kept = withoutCookies(cookie, options.stripCookies);
  if (kept !== undefined) out.push('cookie', kept);
  return out;
}

/** Answer headers the client never gets from the service: its own server frames the answer. */
const NOT_ANSWERED = new Set([...HOP_BY_HOP, 'transfer-encoding']);

/**
 * The service's answer headers for the client, as a flat list from its raw headers: framing left
 * to the app's server, Set-Cookie lines naming AutoCoder's cookies dropped, and `added` as headers
 * of their own (a second Content-Security-Policy is enforced as well as the service's).
 */
export function answeredHeaders(raw: readonly string[], options: ForwardOptions): string[] {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    const value = raw[i + 1] as string;
    const lower = name.toLowerCase();
    if (NOT_ANSWERED.has(lower)) continue;
    if (lower === 'set-cookie' && setsOwnCookie(value, options.stripCookies)) continue;
    out.push(name, value);
  }
  const added = options.responseHeaders;
  if (added) for (const name in added) out.push(name, added[name] as string);
  return out;
}
