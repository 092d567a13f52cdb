import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { MeResponse } from '@/contracts/auth.js';
import type { AppDeps, AppEnv, SessionUser } from '@/server/deps.js';
import { clientIp, isHttps } from '@/server/http/client-ip.js';
import { limitPerIp, SESSION_COOKIE } from '@/server/http/middleware.js';
import {
  apiRoute,
  apiRouter,
  jsonRequest,
  jsonResponse,
  noContent,
  runningFirst,
} from '@/server/openapi/route.js';
import { AuthResponseSchema, LoginBody, MeResponseSchema, RegisterBody } from '@/server/openapi/schemas.js';
import { type IssuedSession, login, logout, register, resolveSession } from './auth.js';

const tags = ['auth'];

const registerRoute = apiRoute(
  {
    method: 'post',
    path: '/register',
    operationId: 'register',
    tags,
    summary: 'Create an account and sign in',
    description: 'Sets the session cookie.',
    request: { body: jsonRequest(RegisterBody) },
    responses: { 201: jsonResponse(AuthResponseSchema, 'Signed in as the new user') },
  },
  { access: 'public', errors: ['EMAIL_TAKEN', 'RATE_LIMITED'] },
);

const loginRoute = apiRoute(
  {
    method: 'post',
    path: '/login',
    operationId: 'login',
    tags,
    summary: 'Sign in',
    description: 'Sets the session cookie. Every failure answers the same 401.',
    request: { body: jsonRequest(LoginBody) },
    responses: { 200: jsonResponse(AuthResponseSchema, 'Signed in') },
  },
  { access: 'public', errors: ['INVALID_CREDENTIALS', 'RATE_LIMITED'] },
);

const logoutRoute = apiRoute(
  {
    method: 'post',
    path: '/logout',
    operationId: 'logout',
    tags,
    summary: 'Sign out',
    description: 'Ends the session of the cookie, if any, and clears the cookie.',
    responses: { 204: noContent },
  },
  { access: 'public' },
);

const meRoute = apiRoute(
  {
    method: 'get',
    path: '/me',
    operationId: 'getCurrentUser',
    tags,
    summary: 'Who is signed in',
    description: 'Signed out is an answer (`user: null`), not an error.',
    responses: { 200: jsonResponse(MeResponseSchema, 'The session’s user, or null') },
  },
  { access: 'public' },
);

const publicUser = (user: SessionUser) => ({
  id: user.id,
  email: user.email,
  createdAt: user.createdAt.toISOString(),
});

export function authRoutes(deps: AppDeps) {
  // Counted before the body is read, so malformed attempts count too.
  const limited: MiddlewareHandler<AppEnv> = async (c, next) => {
    await limitPerIp(deps, c, 'auth');
    await next();
  };

  const setSessionCookie = (c: Context<AppEnv>, session: IssuedSession) =>
    setCookie(c, SESSION_COOKIE, session.token, {
      httpOnly: true,
      sameSite: 'Lax',
      secure: isHttps(c, deps.trustProxy),
      path: '/',
      expires: session.expiresAt,
    });

  return apiRouter()
    .openapi(runningFirst(registerRoute, limited), async (c) => {
      const session = await register(deps, c.req.valid('json'));
      setSessionCookie(c, session);
      return c.json({ user: publicUser(session.user) }, 201);
    })
    .openapi(runningFirst(loginRoute, limited), async (c) => {
      const session = await login(deps, c.req.valid('json'), clientIp(c, deps.trustProxy));
      setSessionCookie(c, session);
      return c.json({ user: publicUser(session.user) }, 200);
    })
    .openapi(logoutRoute, async (c) => {
      const token = getCookie(c, SESSION_COOKIE);
      if (token) await logout(deps, token);
      deleteCookie(c, SESSION_COOKIE, { path: '/' });
      return c.body(null, 204);
    })
    .openapi(meRoute, async (c) => {
      const token = getCookie(c, SESSION_COOKIE);
      const session = token ? await resolveSession(deps, token) : null;
      return c.json<MeResponse, 200>({ user: session ? publicUser(session.user) : null }, 200);
    });
}
