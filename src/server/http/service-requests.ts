import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { parse as parseCookies } from 'hono/utils/cookie';
import type { AppDeps } from '../deps.js';
import { recentSessionUser, resolveSession } from '../modules/auth/auth.js';
import { previewTarget } from '../modules/services/preview.routes.js';
import { PREVIEW_COOKIE, PREVIEW_TICKET_PATH, parsePreviewHost } from '../modules/services/preview-access.js';
import type { ForwardOptions } from '../modules/services/proxy.js';
import type { ProxyTarget } from '../modules/services/proxy-target.js';
import { checkServiceId } from '../modules/services/service-id.js';
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

/** Where a request goes: the service (its forwarding), the app (null), or one of these once known. */
type Forward = ForwardOptions | null;

const PREVIEW_STRIP = [PREVIEW_COOKIE, SESSION_COOKIE] as const;
const PATH_STRIP = [SESSION_COOKIE, PREVIEW_COOKIE] as const;

/**
 * Where a request for a service goes when everything it needs checks out — a preview host with
 * its grant, or the path proxy on the app's own host with a session, from our own origin, for a
 * service of the user's — or null: the app then answers it, refusals and errors included. Known at
 * once when the grant, the session (found in the last second) and the running service are in
 * memory, as for every request of a page's load; a promise when the database must be asked.
 */
function serviceForward(deps: AppDeps, rules: HostRules, req: IncomingMessage): Forward | Promise<Forward> {
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
    if (!userId) return null;
    const forward = (target: ProxyTarget | null): Forward =>
      target && {
        target,
        path: url,
        forwardedHost: host,
        ...forwardedFrom(req, deps.trustProxy),
        stripCookies: PREVIEW_STRIP,
      };
    const running = deps.services.runningTarget(preview.workspaceId, preview.serviceId, { anyCase: true });
    return running ? forward(running) : previewTarget(deps, preview, userId).then(forward);
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
  if (!token) return null;
  const workspaceId = decodedSegment(ids[1]);
  const serviceId = decodedSegment(ids[2]);
  const forward = (target: ProxyTarget): Forward => {
    const forwardedPathHeader = req.headers['x-forwarded-path'];
    return {
      target,
      path: forwardedPath(url, typeof forwardedPathHeader === 'string' ? forwardedPathHeader : undefined),
      forwardedHost: host,
      ...forwardedFrom(req, deps.trustProxy),
      stripCookies: PATH_STRIP,
      responseHeaders: PATH_PROXY_HEADERS,
    };
  };
  const toService = (userId: string): Forward | Promise<Forward> => {
    const running = deps.services.runningTarget(workspaceId, checkServiceId(serviceId), { ownerId: userId });
    return running ? forward(running) : pathProxyTarget(deps, userId, workspaceId, serviceId).then(forward);
  };
  const user = recentSessionUser(deps, token);
  if (user) return toService(user.id);
  return resolveSession(deps, token).then((session) => (session ? toService(session.user.id) : null));
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
  const toService = (req: IncomingMessage, res: ServerResponse, forward: ForwardOptions) => {
    try {
      deps.serviceProxy.web(req, res, forward);
    } catch (error) {
      deps.logger.error('service request failed', { error });
      res.destroy();
    }
  };
  return (req, res) => {
    const rules = hosts();
    if (!mayBeForService(req, rules.baseDomain)) return toApp(req, res);
    let forward: Forward | Promise<Forward>;
    try {
      forward = serviceForward(deps, rules, req);
    } catch {
      // The app runs the same checks again and answers the error (400, 404, 409 …) its own way.
      return toApp(req, res);
    }
    if (forward === null) return toApp(req, res);
    if (!(forward instanceof Promise)) return toService(req, res, forward);
    forward.then(
      (known) => (known ? toService(req, res, known) : toApp(req, res)),
      () => toApp(req, res),
    );
  };
}
