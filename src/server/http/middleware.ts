import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import type { AppDeps, AppEnv } from '../deps.js';
import { bearerToken } from '../lib/bearer.js';
import { AppError } from '../lib/errors.js';
import { resolveSession } from '../modules/auth/auth.js';
import { resolveToken } from '../modules/coordination/tokens.js';
import { clientIp } from './client-ip.js';

export const SESSION_COOKIE = 'autocoder_session';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Requests that change state must come from our own pages: a browser's Origin (or,
 * failing that, Sec-Fetch-Site) must match the Host. Clients that send neither
 * (curl, SDKs) carry no ambient browser credentials to abuse and pass.
 */
export function isCrossOriginWrite(request: {
  method: string;
  origin: string | undefined;
  host: string | undefined;
  fetchSite: string | undefined;
}): boolean {
  if (SAFE_METHODS.has(request.method)) return false;
  if (request.origin === undefined) return request.fetchSite === 'cross-site';
  let originHost: string | null = null;
  try {
    originHost = new URL(request.origin).host;
  } catch {
    originHost = null; // "null" or garbage: treated as a foreign origin
  }
  return !request.host || originHost !== request.host;
}

/** Refuses a cross-origin write (isCrossOriginWrite) with 403 FORBIDDEN_ORIGIN. */
export function checkOrigin(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const crossOrigin = isCrossOriginWrite({
      method: c.req.method,
      origin: c.req.header('origin'),
      host: c.req.header('host'),
      fetchSite: c.req.header('sec-fetch-site'),
    });
    if (crossOrigin) throw new AppError('FORBIDDEN_ORIGIN', 'Cross-origin request refused');
    await next();
  };
}

/** Loads the session's user into `c.var.user`, or answers 401. */
export function requireSession(deps: AppDeps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const token = getCookie(c, SESSION_COOKIE);
    const session = token ? await resolveSession(deps, token) : null;
    if (!session) throw new AppError('UNAUTHORIZED', 'Sign in to continue');
    c.set('user', session.user);
    c.set('sessionId', session.sessionId);
    await next();
  };
}

/**
 * Loads the caller as an agent into `c.var.agent`: `Authorization: Bearer <token>` is that token's
 * agent (a bad token is 401, never a fallback to the cookie); without it, a signed-in session acts
 * as its user. Anyone else: 401.
 */
export function requireAgent(deps: AppDeps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const authorization = c.req.header('authorization');
    if (authorization !== undefined) {
      const token = bearerToken(authorization);
      const agent = token ? await resolveToken(deps.db, token, deps.now(), deps.credentialRecheckMs) : null;
      if (!agent) throw new AppError('UNAUTHORIZED', 'Unknown or revoked agent token');
      c.set('agent', agent);
      return next();
    }
    const token = getCookie(c, SESSION_COOKIE);
    const session = token ? await resolveSession(deps, token) : null;
    if (!session) throw new AppError('UNAUTHORIZED', 'Send Authorization: Bearer <agent token>, or sign in');
    c.set('user', session.user);
    c.set('sessionId', session.sessionId);
    c.set('agent', { id: session.user.id, name: session.user.email, userId: session.user.id });
    await next();
  };
}

/** Counts a request against the per-address limit; over it, 429 with Retry-After. */
export async function limitPerIp(deps: AppDeps, c: Context, bucket: string): Promise<void> {
  const { max, windowMs } = deps.rateLimits.perIp;
  const now = deps.now();
  const { count, resetAt } = await deps.rateLimitStore.hit(
    `${bucket}:${clientIp(c, deps.trustProxy)}`,
    windowMs,
    now,
  );
  if (count > max) {
    throw new AppError('RATE_LIMITED', 'Too many requests. Try again shortly.', {
      retryAfter: Math.max(1, Math.ceil((resetAt - now) / 1000)),
    });
  }
}
