import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AppDeps } from '../deps.js';
import { AppError } from '../lib/errors.js';
import { resolveSession } from '../modules/auth/auth.js';
import { previewTarget } from '../modules/services/preview.routes.js';
import { PREVIEW_COOKIE, parsePreviewHost } from '../modules/services/preview-access.js';
import { errorAnswer, upgradeErrorAnswer } from '../modules/services/proxy-errors.js';
import { pathProxyTarget } from '../modules/services/services.js';
import { forwardedPath, isServiceProxyPath } from '../modules/services/services.routes.js';
import { type HostRules, isOwnHost } from './host-check.js';
import { SESSION_COOKIE } from './middleware.js';
import { cookieOf, decodedSegment, forwardedFrom } from './service-requests.js';

const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
};

/**
 * May a page of `origin` open a WebSocket to the preview at `host`? A client that sends no Origin
 * (not a browser) may; a browser page only from the preview itself or from another preview of the
 * same workspace (a front end and its API, each a service).
 */
export function previewMayConnect(
  origin: string | undefined,
  host: string,
  workspaceId: string,
  baseDomain: string,
): boolean {
  if (origin === undefined) return true;
  const from = hostOf(origin);
  if (from === null) return false;
  if (from.toLowerCase() === host.toLowerCase()) return true;
  return parsePreviewHost(from, baseDomain)?.workspaceId === workspaceId;
}

const refuse = (socket: Duplex, status: number, error: string, message: string) => {
  if (socket.writable) socket.end(upgradeErrorAnswer(errorAnswer(status, { error, message }, undefined)));
  else socket.destroy();
};

/**
 * The node server's 'upgrade' listener: WebSocket (and other Upgrade) requests for a service, by
 * its preview host (with the preview cookie) or by the path proxy on the app's own host (with a
 * session, from our own origin), carried through to the service. Anything else is refused.
 */
export function serviceUpgrades(deps: AppDeps, hosts: () => HostRules) {
  const forwardFor = (req: IncomingMessage) => forwardedFrom(req, deps.trustProxy);

  const handle = async (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const host = req.headers.host ?? '';
    const rules = hosts();
    const preview = parsePreviewHost(host, rules.baseDomain);
    if (preview) {
      // The preview cookie may go with cross-site requests (SameSite=None, so that the app can frame
      // the preview): only the preview's own pages, or another service of its workspace, may open a
      // socket with it (cross-site WebSocket hijacking).
      if (!previewMayConnect(req.headers.origin, host, preview.workspaceId, rules.baseDomain)) {
        refuse(socket, 403, 'FORBIDDEN_ORIGIN', 'Cross-origin request refused');
        return;
      }
      const userId = deps.previews.check(cookieOf(req, PREVIEW_COOKIE), preview);
      const target = userId ? await previewTarget(deps, preview, userId) : null;
      if (!target) {
        refuse(
          socket,
          401,
          'preview_unauthorized',
          'Open this preview from AutoCoder: it needs a fresh preview link.',
        );
        return;
      }
      deps.serviceProxy.upgrade(req, socket, head, {
        target,
        path: req.url ?? '/',
        forwardedHost: host,
        ...forwardFor(req),
        stripCookies: [PREVIEW_COOKIE, SESSION_COOKIE],
      });
      return;
    }
    if (!isOwnHost(host, rules)) {
      refuse(socket, 421, 'MISDIRECTED_REQUEST', 'This server does not answer to that host name');
      return;
    }
    const url = req.url ?? '/';
    const pathname = url.split('?')[0] ?? '/';
    const ids = /^\/api\/workspaces\/([^/]+)\/services\/([^/]+)\/http/.exec(pathname);
    if (!isServiceProxyPath(pathname) || !ids?.[1] || !ids[2]) {
      refuse(socket, 404, 'NOT_FOUND', 'Not found');
      return;
    }
    // A page of another origin must not open a socket with the user's cookie (cross-site WebSocket hijacking).
    const origin = req.headers.origin;
    if (origin !== undefined && hostOf(origin) !== host) {
      refuse(socket, 403, 'FORBIDDEN_ORIGIN', 'Cross-origin request refused');
      return;
    }
    const token = cookieOf(req, SESSION_COOKIE);
    const session = token ? await resolveSession(deps, token) : null;
    if (!session) {
      refuse(socket, 401, 'UNAUTHORIZED', 'Sign in to continue');
      return;
    }
    const target = await pathProxyTarget(
      deps,
      session.user.id,
      decodedSegment(ids[1]),
      decodedSegment(ids[2]),
    );
    const forwardedPathHeader = req.headers['x-forwarded-path'];
    deps.serviceProxy.upgrade(req, socket, head, {
      target,
      path: forwardedPath(url, typeof forwardedPathHeader === 'string' ? forwardedPathHeader : undefined),
      forwardedHost: host,
      ...forwardFor(req),
      stripCookies: [SESSION_COOKIE, PREVIEW_COOKIE],
    });
  };

  return (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    handle(req, socket, head).catch((error: unknown) => {
      if (error instanceof AppError) {
        const answer = errorAnswer(
          error.status,
          { error: error.code, message: error.message, ...error.details },
          undefined,
        );
        if (socket.writable) socket.end(upgradeErrorAnswer(answer));
        return;
      }
      deps.logger.error('service upgrade failed', { error });
      refuse(socket, 500, 'INTERNAL_ERROR', 'Something went wrong');
    });
  };
}
