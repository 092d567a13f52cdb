import type { IncomingMessage, RequestListener } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { parse as parseCookies } from 'hono/utils/cookie';
import type { AppDeps } from '../deps.js';
import { resolveSession } from '../modules/auth/auth.js';
import { previewTarget } from '../modules/services/preview.routes.js';
import { PREVIEW_COOKIE, PREVIEW_TICKET_PATH, parsePreviewHost } from '../modules/services/preview-access.js';
import type { ForwardOptions } from '../modules/services/proxy.js';
import { pathProxyTarget } from '../modules/services/services.js';
import { forwardedPath, PATH_PROXY_HEADERS } from '../modules/services/services.routes.js';
import { type HostRules, isOwnHost } from './host-check.js';
import { isCrossOriginWrite, SESSION_COOKIE } from './middleware.js';

/** One cookie's value, parsed as the app's routes parse it (hono's getCookie). */
export const cookieOf = (req: IncomingMessage, name: string): string | undefined => {
  const header = req.headers.cookie;
  return header ? parseCookies(header, name)[name] : undefined;
};

/** A path segment decoded; one that does not decode stays as it is (and fails the id checks). */
export const decodedSegment = (segment: string) => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

const decodedPath = (pathname: string) => {
  try {
    return decodeURI(pathname);
  } catch {
    return pathname;
  }
};

/**
 * The client's address and scheme from a node request, as the app's `clientIp` and `isHttps` read
 * them: the socket's, or, behind a trusted proxy, the right-most X-Forwarded-For hop and the
 * first X-Forwarded-Proto.
 */
export function forwardedFrom(
  req: IncomingMessage,
  trustProxy: boolean,
): { clientIp: string; proto: 'http' | 'https' } {
  const forwarded = trustProxy
    ? String(req.headers['x-forwarded-for'] ?? '')
        .split(',')
        .at(-1)
        ?.trim()
    : '';
  const trustedProto =
    trustProxy &&
    String(req.headers['x-forwarded-proto'] ?? '')
      .split(',')[0]
      ?.trim() === 'https';
  const encrypted = Boolean((req.socket as TLSSocket).encrypted);
  return {
    clientIp: forwarded || req.socket.remoteAddress || 'unknown',
    proto: encrypted || trustedProto ? 'https' : 'http',
  };
}

/** The path proxy's URL, with the workspace's and the service's ids. */
const PROXY_IDS = /^\/api\/workspaces\/([^/]+)\/services\/([^/]+)\/http(?:\/.*)?$/;

/**
 * Where a request for a service goes when everything it needs checks out — a preview host with
 * its grant, or the path proxy on the app's own host with a session, from our own origin, for a
 * service of the user's — or null: the app then answers it, refusals and errors included.
 */
async function serviceForward(
  deps: AppDeps,
  rules: HostRules,
  req: IncomingMessage,
): Promise<ForwardOptions | null> {
  const url = req.url ?? '';
  const host = req.headers.host;
  if (!host || !url.startsWith('/')) return null;
  const query = url.indexOf('?');
  const pathname = query === -1 ? url : url.slice(0, query);
  const preview = parsePreviewHost(host, rules.baseDomain);
  if (preview) {
    // The app's router reads the path decoded (decodeURI): so does this check.
    if (decodedPath(pathname) === PREVIEW_TICKET_PATH) return null;
    const userId = deps.previews.check(cookieOf(req, PREVIEW_COOKIE), preview);
    const target = userId ? await previewTarget(deps, preview, userId) : null;
    if (!target) return null;
    return {
      target,
      path: url,
      forwardedHost: host,
      ...forwardedFrom(req, deps.trustProxy),
      stripCookies: [PREVIEW_COOKIE, SESSION_COOKIE],
    };
  }
  const ids = PROXY_IDS.exec(pathname);
  if (!ids?.[1] || !ids[2] || !isOwnHost(host, rules)) return null;
  const fetchSite = req.headers['sec-fetch-site'];
  if (
    isCrossOriginWrite({
      method: req.method ?? 'GET',
      origin: req.headers.origin,
      host,
      fetchSite: typeof fetchSite === 'string' ? fetchSite : undefined,
    })
  )
    return null;
  const token = cookieOf(req, SESSION_COOKIE);
  const session = token ? await resolveSession(deps, token) : null;
  if (!session) return null;
  const target = await pathProxyTarget(deps, session.user.id, decodedSegment(ids[1]), decodedSegment(ids[2]));
  const forwardedPathHeader = req.headers['x-forwarded-path'];
  return {
    target,
    path: forwardedPath(url, typeof forwardedPathHeader === 'string' ? forwardedPathHeader : undefined),
    forwardedHost: host,
    ...forwardedFrom(req, deps.trustProxy),
    stripCookies: [SESSION_COOKIE, PREVIEW_COOKIE],
    responseHeaders: PATH_PROXY_HEADERS,
  };
}

/** Could this request be a service's? Cheap, so that the app's own requests pay nothing more. */
const mayBeForService = (req: IncomingMessage, baseDomain: string) =>
  req.url?.startsWith('/api/workspaces/') ||
  (req.headers.host ?? '').toLowerCase().replace(/:\d+$/, '').endsWith(`.${baseDomain.toLowerCase()}`);

/**
 * The node server's request listener, in front of the app: a service's request — by its preview
 * host or by the path proxy — that passes every check goes from the node request straight to
 * the proxy, without the web Request and Response the app's routes are built on (most of what a
 * proxied request cost). Every other request, and every refusal or error of the proxies, is the
 * app's to answer, with its error table and headers, exactly as before.
 */
export function serviceRequests(
  deps: AppDeps,
  hosts: () => HostRules,
  app: RequestListener,
): RequestListener {
  const toApp: RequestListener = (req, res) => void app(req, res);
  return (req, res) => {
    const rules = hosts();
    if (!mayBeForService(req, rules.baseDomain)) return toApp(req, res);
    serviceForward(deps, rules, req)
      .then(
        (forward) => (forward ? deps.serviceProxy.web(req, res, forward) : toApp(req, res)),
        // The app runs the same checks again and answers the error (404, 409, 503 …) its own way.
        () => toApp(req, res),
      )
      .catch((error: unknown) => {
        deps.logger.error('service request failed', { error });
        res.destroy();
      });
  };
}
