import { type Context, Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { loginSchema, type MeResponse, registerSchema } from '@/contracts/auth.js';
import type { AppDeps, AppEnv, SessionUser } from '@/server/deps.js';
import { isHttps } from '@/server/http/client-ip.js';
import { limitPerIp, SESSION_COOKIE } from '@/server/http/middleware.js';
import { readJson } from '@/server/lib/validate.js';
import { type IssuedSession, login, logout, register, resolveSession } from './auth.js';

const publicUser = (user: SessionUser) => ({
  id: user.id,
  email: user.email,
  createdAt: user.createdAt.toISOString(),
});

export function authRoutes(deps: AppDeps) {
  const setSessionCookie = (c: Context, session: IssuedSession) =>
    setCookie(c, SESSION_COOKIE, session.token, {
      httpOnly: true,
      sameSite: 'Lax',
      secure: isHttps(c, deps.trustProxy),
      path: '/',
      expires: session.expiresAt,
    });

  return (
    new Hono<AppEnv>()
      .post('/register', async (c) => {
        await limitPerIp(deps, c, 'auth');
        const session = await register(deps, await readJson(c, registerSchema));
        setSessionCookie(c, session);
        return c.json({ user: publicUser(session.user) }, 201);
      })
      .post('/login', async (c) => {
        await limitPerIp(deps, c, 'auth');
        const session = await login(deps, await readJson(c, loginSchema));
        setSessionCookie(c, session);
        return c.json({ user: publicUser(session.user) });
      })
      .post('/logout', async (c) => {
        const token = getCookie(c, SESSION_COOKIE);
        if (token) await logout(deps, token);
        deleteCookie(c, SESSION_COOKIE, { path: '/' });
        return c.body(null, 204);
      })
      // Signed out is an answer, not an error: a first page load logs no 401.
      .get('/me', async (c) => {
        const token = getCookie(c, SESSION_COOKIE);
        const session = token ? await resolveSession(deps, token) : null;
        return c.json<MeResponse>({ user: session ? publicUser(session.user) : null });
      })
  );
}
