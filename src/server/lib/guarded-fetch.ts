import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { AppError } from './errors.js';
import { type NetworkPolicy, normalizeHost } from './network-policy.js';

/** 400 ADDRESS_NOT_ALLOWED naming the host, never the address it resolved to. */
export function addressNotAllowed(host: string): AppError {
  return new AppError(
    'ADDRESS_NOT_ALLOWED',
    `${normalizeHost(host)} is a local or private address this server may not reach (see AUTOCODER_ALLOWED_HOSTS)`,
  );
}

/**
 * Every address `host` resolves to, once each is checked against the policy. An IP literal is
 * checked as it is. Throws ADDRESS_NOT_ALLOWED if any address is refused; a resolution failure
 * is rethrown as it is (ENOTFOUND…) for the caller to describe.
 */
export async function resolveAllowed(policy: NetworkPolicy, host: string): Promise<LookupAddress[]> {
  const name = normalizeHost(host);
  const family = isIP(name);
  const addresses: LookupAddress[] = family
    ? [{ address: name, family }]
    : await new Promise((resolve, reject) =>
        dnsLookup(name, { all: true }, (error, found) => (error ? reject(error) : resolve(found))),
      );
  if (addresses.length === 0 || addresses.some(({ address }) => !policy.allows(name, address))) {
    throw addressNotAllowed(name);
  }
  return addresses;
}

/**
 * A `lookup` for sockets: resolves, then refuses the connection unless every address passes the
 * policy. It runs when the socket connects, so a name that changes its answer between an earlier
 * check and the connection (DNS rebinding) is checked again on the answer actually used.
 */
export function guardedLookup(policy: NetworkPolicy): LookupFunction {
  return (hostname, options, callback) => {
    resolveAllowed(policy, hostname).then(
      (addresses) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
        const usable = wanted ? addresses.filter((a) => a.family === wanted) : addresses;
        if (options.all) return callback(null, usable);
        const first = usable[0];
        if (!first)
          return callback(Object.assign(new Error(`${hostname}: no address`), { code: 'ENOTFOUND' }), '');
        callback(null, first.address, first.family);
      },
      (error: Error) => callback(error as NodeJS.ErrnoException, ''),
    );
  };
}

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * A `fetch` for URLs a user chose: node:http(s) with {@link guardedLookup}, so every connection
 * goes to an address the policy allows. IP literals (which skip DNS) are checked before connecting.
 * Redirects are never followed: a 3xx comes back as it is.
 */
export function createGuardedFetch(policy: NetworkPolicy): typeof fetch {
  const lookup = guardedLookup(policy);
  const agents = {
    'http:': new http.Agent({ keepAlive: true, lookup }),
    'https:': new https.Agent({ keepAlive: true, lookup }),
  };
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new TypeError(`fetch: ${url.protocol} URLs are not supported`);
    }
    if (isIP(normalizeHost(url.hostname))) await resolveAllowed(policy, url.hostname);
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const headers: Record<string, string> = {};
    request.headers.forEach((value, key) => {
      headers[key] = value;
    });
    if (body) headers['content-length'] = String(body.length);
    const signal = request.signal;
    signal.throwIfAborted();
    const send = url.protocol === 'https:' ? https.request : http.request;
    return new Promise<Response>((resolve, reject) => {
      const req = send(url, { method: request.method, headers, agent: agents[url.protocol as 'http:'] });
      const onAbort = () => req.destroy(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      req.on('error', (error) => {
        signal.removeEventListener('abort', onAbort);
        // A refusal keeps its own words (they name the host); anything else reads like fetch's failure.
        const message = error instanceof AppError ? error.message : 'fetch failed';
        reject(signal.aborted ? signal.reason : new TypeError(message, { cause: error }));
      });
      req.on('response', (res) => {
        res.on('close', () => signal.removeEventListener('abort', onAbort));
        const responseHeaders = new Headers();
        for (const [key, value] of Object.entries(res.headers)) {
          for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
            responseHeaders.append(key, v);
          }
        }
        const status = res.statusCode ?? 502;
        const stream = NULL_BODY_STATUSES.has(status)
          ? null
          : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
        if (!stream) res.resume();
        resolve(
          new Response(stream, { status, statusText: res.statusMessage ?? '', headers: responseHeaders }),
        );
      });
      req.end(body);
    });
  };
}
