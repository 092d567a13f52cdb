import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { AppDeps, AppEnv } from '@/server/deps.js';
import { clientIp, isHttps } from '@/server/http/client-ip.js';
import { SESSION_COOKIE } from '@/server/http/middleware.js';
import { AppError } from '@/server/lib/errors.js';
import {
  GRANT_TTL_MS,
  PREVIEW_COOKIE,
  PREVIEW_TICKET_PATH,
  type PreviewHost,
  parsePreviewHost,
} from './preview-access.js';
import { errorAnswer } from './proxy-errors.js';
import type { ProxyTarget } from './proxy-target.js';
import { resolveWorkspace } from './workspaces.js';

/** 401 for a preview without a valid grant: a page for a browser, JSON otherwise. */
function refuse(c: Context, message: string): Response {
  const answer = errorAnswer(401, { error: 'preview_unauthorized', message }, c.req.header('accept'));
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}

/**
 * The preview cookie. Host-only (no Domain) and httpOnly. Inside AutoCoder's page the preview is
 * a cross-site frame (a `*.localhost` host is a site of its own), where only a `SameSite=None;
 * Secure` cookie is sent: browsers accept Secure cookies over https and on `*.localhost`. On
 * plain http elsewhere it is `Lax`, which serves a preview opened in its own tab. A Secure one is
 * also `Partitioned`, so browsers that block third-party cookies keep it for the frame.
 */
function grantCookie(c: Context<AppEnv>, deps: AppDeps, grant: string) {
  const hostname = (c.req.header('host') ?? '').replace(/:\d+$/, '').toLowerCase();
  const secure = isHttps(c, deps.trustProxy) || hostname.endsWith('.localhost');
  setCookie(c, PREVIEW_COOKIE, grant, {
    httpOnly: true,
    path: '/',
    secure,
    sameSite: secure ? 'None' : 'Lax',
    // CHIPS: a browser that blocks third-party cookies (Chromium's automation and incognito
    // profiles, for one) still keeps a partitioned one for the frame inside AutoCoder's page.
    ...(secure ? { partitioned: true } : {}),
    maxAge: GRANT_TTL_MS / 1000,
  });
}

/**
 * Serves `{workspaceId}-svc-{serviceId}.{baseDomain}` hosts before anything else of the app: the
 * ticket path sets the preview cookie and redirects to the service's `urlPath`; every other
 * request needs that cookie, which is checked and stripped (with any AutoCoder session cookie)
 * before the request goes to the service. Other hosts pass on to the app.
 */
export function previewHost(deps: AppDeps, baseDomain: () => string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const host = c.req.header('host') ?? new URL(c.req.url).host;
    const target = parsePreviewHost(host, baseDomain());
    if (!target) return next();
    if (c.req.path === PREVIEW_TICKET_PATH) return redeem(c, deps, target);

    const userId = deps.previews.check(getCookie(c, PREVIEW_COOKIE), target);
    if (!userId) return refuse(c, 'Open this preview from AutoCoder: it needs a fresh preview link.');
    const proxyTarget = await previewTarget(deps, target, userId);
    if (!proxyTarget) return refuse(c, 'This preview is not yours.');
    const bindings = c.env as Partial<HttpBindings> | undefined;
    if (!bindings?.incoming || !bindings.outgoing) {
      throw new AppError('INTERNAL_ERROR', 'The service proxy runs on the Node server only');
    }
    deps.serviceProxy.web(bindings.incoming, bindings.outgoing, {
      target: proxyTarget,
      path: bindings.incoming.url ?? '/',
      forwardedHost: host,
      proto: isHttps(c, deps.trustProxy) ? 'https' : 'http',
      clientIp: clientIp(c, deps.trustProxy),
      stripCookies: [PREVIEW_COOKIE, SESSION_COOKIE],
    });
    return RESPONSE_ALREADY_SENT;
  };
}

/**
 * Where a preview's requests go. A running service is found in memory (the grant was issued to
 * its workspace's owner); otherwise the workspace is read, and must still be the grant's user's.
 */
export async function previewTarget(
  deps: AppDeps,
  target: PreviewHost,
  userId: string,
): Promise<ProxyTarget | null> {
  const running = deps.services.runningTarget(target.workspaceId, target.serviceId, { anyCase: true });
  if (running) return running;
  const workspace = await resolveWorkspace(deps, target.workspaceId);
  if (workspace.userId !== userId) return null;
  return deps.services.proxyTarget(workspace, target.serviceId, { anyCase: true });
}

/** Spends the ticket: the cookie for this host, then the service's own start page. */
async function redeem(c: Context<AppEnv>, deps: AppDeps, target: PreviewHost): Promise<Response> {
  const grant = deps.previews.redeem(c.req.query('ticket') ?? '', target);
  if (!grant)
    return refuse(
      c,
      'This preview link was used already or has expired: open the preview again from AutoCoder.',
    );
  const workspace = await resolveWorkspace(deps, target.workspaceId);
  const service = await deps.services.get(workspace, target.serviceId, { anyCase: true });
  grantCookie(c, deps, grant);
  c.header('Cache-Control', 'no-store');
  c.header('Referrer-Policy', 'no-referrer');
  return c.redirect(service.urlPath ?? '/', 302);
}
