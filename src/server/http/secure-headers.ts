import { Hono, type MiddlewareHandler } from 'hono';
import { secureHeaders } from 'hono/secure-headers';

/**
 * The security headers of every answer of the app (CSP and the rest of Hono's secureHeaders).
 * The services panel frames previews, which live on the base domain's subdomains (their own origins).
 */
export function appSecureHeaders(baseDomain: string): MiddlewareHandler {
  return secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      frameSrc: ["'self'", `http://*.${baseDomain}:*`, `https://*.${baseDomain}:*`],
      frameAncestors: ["'none'"],
    },
    crossOriginEmbedderPolicy: false,
    // A route may set a stricter or looser header of its own: the API reference page adds its
    // inline script's nonce to script-src (openapi/docs.routes.ts).
    overwrite: false,
  });
}

const pairsByDomain = new Map<string, Promise<readonly [string, string][]>>();

/**
 * The headers `appSecureHeaders(baseDomain)` adds to an answer that sets none of them, for the
 * answers written below Hono (http/agent-requests.ts). Taken from the middleware itself, once per
 * base domain, so that they cannot drift from the app's.
 */
export function secureHeaderPairs(baseDomain: string): Promise<readonly [string, string][]> {
  let pairs = pairsByDomain.get(baseDomain);
  if (!pairs) {
    const probe = new Hono();
    probe.use(appSecureHeaders(baseDomain));
    probe.get('/', (c) => c.body(null, 204));
    pairs = Promise.resolve(probe.request('/')).then((res) => [...res.headers.entries()]);
    pairsByDomain.set(baseDomain, pairs);
  }
  return pairs;
}
