import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestApp,
  RELAXED_LIMITS,
  signedInClient,
  type TestApp,
  TestClient,
} from '@/server/testing/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

describe('register', () => {
  it('creates the user, signs them in with an httpOnly SameSite cookie and creates a default project', async () => {
    const client = new TestClient(t.app);
    const res = await client.post<{ user: { email: string; id: string } }>('/api/auth/register', {
      email: '  New.User@Example.com ',
      password: 'longenough',
    });
    expect(res.status).toBe(201);
    expect(res.body.user.email).toBe('new.user@example.com');
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/autocoder_session=/);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).not.toMatch(/Secure/i);
    expect(JSON.stringify(res.body)).not.toMatch(/password/i);

    const me = await client.get<{ user: { email: string } }>('/api/auth/me');
    expect(me.status).toBe(200);
    expect(me.body.user.email).toBe('new.user@example.com');
    const projects = await client.get<{ projects: { name: string }[] }>('/api/projects');
    expect(projects.body.projects.map((p) => p.name)).toEqual(['My Project']);
  });

  it('marks the cookie Secure behind https', async () => {
    const res = await t.app.request('https://localhost/api/auth/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'secure@example.com', password: 'longenough' }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('set-cookie')).toMatch(/Secure/i);
  });

  it('answers 409 with a safe message for a duplicate email, whatever its case', async () => {
    const client = new TestClient(t.app);
    await client.post('/api/auth/register', { email: 'dup@example.com', password: 'longenough' });
    const res = await new TestClient(t.app).post('/api/auth/register', {
      email: 'DUP@example.com',
      password: 'other-password',
    });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: 'EMAIL_TAKEN' });
  });

  it('answers 400 with field errors for a bad email or a short password', async () => {
    const res = await new TestClient(t.app).post<{ fields: Record<string, string[]> }>('/api/auth/register', {
      email: 'not-an-email',
      password: 'short',
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR' });
    expect(Object.keys(res.body.fields).sort()).toEqual(['email', 'password']);
  });

  it('stores an argon2id hash, never the password', async () => {
    await new TestClient(t.app).post('/api/auth/register', {
      email: 'hash@example.com',
      password: 'plain-secret-1',
    });
    const rows = await t.database.db.query.users.findMany();
    const row = rows.find((r) => r.email === 'hash@example.com');
    expect(row?.passwordHash).toMatch(/^\$argon2id\$/);
    expect(row?.passwordHash).not.toContain('plain-secret-1');
  });
});

describe('login and logout', () => {
  it('signs in with the right password and gives one generic 401 for every failure', async () => {
    await new TestClient(t.app).post('/api/auth/register', {
      email: 'login@example.com',
      password: 'right-password',
    });
    const ok = await new TestClient(t.app).post('/api/auth/login', {
      email: 'LOGIN@example.com',
      password: 'right-password',
    });
    expect(ok.status).toBe(200);

    const failures = [
      { email: 'login@example.com', password: 'wrong-password' },
      { email: 'nobody@example.com', password: 'right-password' },
      { email: '', password: '' },
      { email: 'not an email', password: 'x' },
    ];
    for (const body of failures) {
      const res = await new TestClient(t.app).post('/api/auth/login', body);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'INVALID_CREDENTIALS', message: 'Invalid email or password' });
    }
  });

  it('invalidates the session on the server: the old cookie stops working', async () => {
    const { client } = await signedInClient(t.app);
    const stolen = client.cookie;
    expect((await client.get('/api/auth/me')).body).toMatchObject({ user: { id: expect.any(String) } });
    expect((await client.post('/api/auth/logout')).status).toBe(204);
    const replay = new TestClient(t.app);
    replay.cookie = stolen;
    expect((await replay.get('/api/auth/me')).body).toEqual({ user: null });
    expect((await replay.get('/api/projects')).status).toBe(401);
  });

  it('expires sessions after 30 days', async () => {
    const local = await createTestApp();
    try {
      const { client } = await signedInClient(local.app);
      local.advance(31 * 24 * 60 * 60 * 1000);
      expect((await client.get('/api/auth/me')).body).toEqual({ user: null });
    } finally {
      await local.close();
    }
  });
});

describe('rate limits', () => {
  // Failed logins (per address, per account and address, per account): login-guard.test.ts.

  it('behind TRUST_PROXY, limits by the right-most X-Forwarded-For hop, not what the client prepends', async () => {
    const local = await createTestApp({
      deps: { trustProxy: true },
      runtime: {
        rateLimits: { ...RELAXED_LIMITS, perIp: { max: 3, windowMs: 60_000 } },
      },
    });
    try {
      const login = (forwardedFor: string) =>
        new TestClient(local.app)
          .request(
            'POST',
            '/api/auth/login',
            { email: 'x@example.com', password: 'whatever1' },
            {
              'x-forwarded-for': forwardedFor,
            },
          )
          .then((r) => r.status);
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push(await login(`10.0.0.${i}, 203.0.113.7`));
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
      // Another client behind the same proxy has its own count.
      expect(await login('10.0.0.1, 203.0.113.8')).toBe(401);
    } finally {
      await local.close();
    }
  });

  it('limits login and register requests per address', async () => {
    const local = await createTestApp({
      runtime: {
        rateLimits: { ...RELAXED_LIMITS, perIp: { max: 5, windowMs: 60_000 } },
      },
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) {
        const res = await new TestClient(local.app).post('/api/auth/login', {
          email: `x${i}@example.com`,
          password: 'whatever1',
        });
        statuses.push(res.status);
      }
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
      local.advance(61_000);
      const after = await new TestClient(local.app).post('/api/auth/login', {
        email: 'x@example.com',
        password: 'whatever1',
      });
      expect(after.status).toBe(401);
    } finally {
      await local.close();
    }
  });
});

describe('route protection', () => {
  it('keeps /api/health public and every other API route behind a session', async () => {
    const anon = new TestClient(t.app);
    const health = await anon.get('/api/health');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'ok', database: t.deps.dbKind });
    for (const [method, url] of [
      ['GET', '/api/projects'],
      ['POST', '/api/projects'],
      ['GET', '/api/tasks?projectId=00000000-0000-0000-0000-000000000000'],
      ['POST', '/api/tasks'],
      ['PATCH', '/api/tasks/00000000-0000-0000-0000-000000000000/status'],
    ] as const) {
      const res = await anon.request(method, url, method === 'GET' ? undefined : {});
      expect(res.status, `${method} ${url}`).toBe(401);
      expect(res.body).toMatchObject({ error: 'UNAUTHORIZED' });
    }
  });

  it('answers GET /api/auth/me without a session with 200 { user: null }, not a 401', async () => {
    const anon = new TestClient(t.app);
    const me = await anon.get('/api/auth/me');
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ user: null });
    anon.cookie = 'autocoder_session=forged-or-expired';
    expect(await anon.get('/api/auth/me')).toMatchObject({ status: 200, body: { user: null } });
  });

  it('refuses state-changing requests from another origin', async () => {
    const { client } = await signedInClient(t.app);
    const res = await client.request(
      'POST',
      '/api/projects',
      { name: 'x' },
      { origin: 'https://evil.example' },
    );
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'FORBIDDEN_ORIGIN' });
    const crossSite = await client.request(
      'POST',
      '/api/projects',
      { name: 'x' },
      { origin: '', 'sec-fetch-site': 'cross-site' },
    );
    expect(crossSite.status).toBe(403);
    const same = await client.request('POST', '/api/projects', { name: 'Same origin' });
    expect(same.status).toBe(201);
  });
});
