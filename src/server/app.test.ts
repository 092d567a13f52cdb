import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { protectedApi } from './app.js';
import type { AppEnv } from './deps.js';
import { AppError } from './lib/errors.js';
import { apiRouter } from './openapi/route.js';
import { createTestApp, signedInClient, type TestApp, TestClient } from './testing/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

describe('the protected API', () => {
  it('answers 401 to a request without a session for any router mounted on it, and lets a session through', async () => {
    const throwaway = apiRouter();
    throwaway.get('/', (c) => c.json({ userId: c.var.user.id }));
    const app = new Hono<AppEnv>()
      .route('/api', protectedApi(t.deps, [['/throwaway', throwaway]]))
      .onError((error, c) =>
        error instanceof AppError ? c.json({ error: error.code }, error.status as 401) : c.text('bug', 500),
      );

    const anonymous = await app.request('/api/throwaway');
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ error: 'UNAUTHORIZED' });

    const { client } = await signedInClient(t.app);
    const me = await client.get<{ user: { id: string } }>('/api/auth/me');
    const signedIn = await app.request('/api/throwaway', { headers: { cookie: client.cookie } });
    expect(signedIn.status).toBe(200);
    expect(await signedIn.json()).toEqual({ userId: me.body.user.id });
  });

  it('guards every authenticated router of the app, an unknown API route included', async () => {
    const anonymous = new TestClient(t.app);
    const id = '00000000-0000-4000-8000-000000000000';
    for (const url of [
      '/api/projects',
      `/api/projects/${id}/tree`,
      `/api/tasks?projectId=${id}`,
      `/api/tasks/${id}`,
      `/api/pipeline/${id}/status`,
      `/api/pipeline/runs/${id}/events`,
      `/api/sse/${id}`,
      `/api/sse/projects/${id}`,
      '/api/nope',
    ]) {
      const res = await anonymous.get(url);
      expect({ url, status: res.status, error: res.body }).toMatchObject({
        url,
        status: 401,
        error: { error: 'UNAUTHORIZED' },
      });
    }
    const start = await anonymous.post(`/api/tasks/${id}/start-pipeline`, { provider: 'simulator' });
    expect(start.status).toBe(401);
  });

  it('leaves the public routes outside: health, sign-up and sign-in, and metrics with its own token', async () => {
    const anonymous = new TestClient(t.app);
    expect((await anonymous.get('/api/health')).status).toBe(200);
    expect((await anonymous.get('/api/metrics')).status).toBe(404);
    const registered = await anonymous.post('/api/auth/register', {
      email: 'public-routes@example.com',
      password: 'correct horse battery staple',
    });
    expect(registered.status).toBe(201);
    const me = await anonymous.get<{ user: { email: string } | null }>('/api/auth/me');
    expect(me.body.user?.email).toBe('public-routes@example.com');
  });
});
