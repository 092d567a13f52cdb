import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sessions } from '@/server/db/schema.js';
import { CREDENTIAL_RECHECK_MS, credentialRecheckFor } from '@/server/lib/credential-recheck.js';
import { createTestApp, signedInClient, type TestApp, TestClient } from '@/server/testing/test-app.js';
import { logout, recentSessionUser } from './auth.js';

let t: TestApp;
let embedded: TestApp;
beforeAll(async () => {
  // The recheck PostgreSQL gets, whichever database runs the tests.
  t = await createTestApp({ deps: { credentialRecheckMs: CREDENTIAL_RECHECK_MS } });
  embedded = await createTestApp({ deps: { credentialRecheckMs: null } });
});
afterAll(async () => Promise.all([t.close(), embedded.close()]));

type Client = Awaited<ReturnType<typeof signedInClient>>['client'];

/** Lists the board as the client, answering how many statements that cost the database. */
const statementsOfList = (client: Client, projectId: string) => async () => {
  const before = t.database.stats.statements;
  expect((await client.get(`/api/tasks?projectId=${projectId}`)).status).toBe(200);
  return t.database.stats.statements - before;
};

describe('the recheck of a database', () => {
  it('is a second on PostgreSQL, which other processes may share, and none on the embedded PGlite', async () => {
    expect(credentialRecheckFor('postgres')).toBe(1000);
    expect(credentialRecheckFor('pglite')).toBeNull();
    const app = await createTestApp();
    try {
      expect(app.deps.credentialRecheckMs).toBe(credentialRecheckFor(app.deps.dbKind));
    } finally {
      await app.close();
    }
  });
});

describe('sessions on an embedded database', () => {
  it('are asked for once, then trusted until logout', async () => {
    const { client, projectId } = await signedInClient(embedded.app);
    const list = async () => {
      const before = embedded.database.stats.statements;
      expect((await client.get(`/api/tasks?projectId=${projectId}`)).status).toBe(200);
      return embedded.database.stats.statements - before;
    };
    await list(); // the list itself is cached from now on
    embedded.advance(60 * 60 * 1000);
    expect(await list(), 'the board version only, an hour on').toBe(1);
    const replay = new TestClient(embedded.app);
    replay.cookie = client.cookie;
    expect((await client.post('/api/auth/logout')).status).toBe(204);
    expect((await replay.get('/api/projects')).status, 'the old cookie, after logout').toBe(401);
  });

  it('still expire at their expiry', async () => {
    const { client } = await signedInClient(embedded.app);
    expect((await client.get('/api/projects')).status).toBe(200);
    embedded.advance(30 * 24 * 60 * 60 * 1000 + 1);
    expect((await client.get('/api/projects')).status).toBe(401);
  });
});

describe('recently found sessions, looked up again within the second', () => {
  it('asks the database for a session at most once a second', async () => {
    const { client, projectId } = await signedInClient(t.app);
    const list = statementsOfList(client, projectId);
    await list(); // the list itself is cached from now on
    t.advance(1_001);
    expect(await list(), 'the session, then the board version').toBe(2);
    expect(await list(), 'the board version only').toBe(1);
  });

  it('notices a session removed from the database within a second', async () => {
    const { client } = await signedInClient(t.app);
    expect((await client.get('/api/projects')).status).toBe(200);
    await t.database.db.delete(sessions);
    t.advance(1_001);
    expect((await client.get('/api/projects')).status).toBe(401);
  });

  it('still expires a session at its expiry, whenever it was last found', async () => {
    const { client } = await signedInClient(t.app);
    expect((await client.get('/api/projects')).status).toBe(200);
    t.advance(30 * 24 * 60 * 60 * 1000 + 1);
    expect((await client.get('/api/projects')).status).toBe(401);
  });

  it('looks a session in steady use up again ahead of the second, so that no request waits for it', async () => {
    const { client, projectId } = await signedInClient(t.app);
    const list = statementsOfList(client, projectId);
    await list();
    t.advance(1_001);
    await list(); // found now
    t.advance(850);
    const started = t.database.stats.statements;
    await list(); // the board version now, the session in the background
    await vi.waitFor(() => expect(t.database.stats.statements - started).toBe(2));
    t.advance(300); // 1.15 s after the session was found, 0.3 s after it was found again
    expect(await list(), 'the board version only').toBe(1);
  });

  it('drops a session the background lookup no longer finds, before the second is out', async () => {
    const { client } = await signedInClient(t.app);
    const token = client.cookie.slice(client.cookie.indexOf('=') + 1);
    expect((await client.get('/api/projects')).status).toBe(200);
    await t.database.db.delete(sessions);
    t.advance(850);
    expect(recentSessionUser(t.deps, token), 'answered from the recent entry').toBeDefined();
    await vi.waitFor(() => expect(recentSessionUser(t.deps, token)).toBeUndefined());
    expect((await client.get('/api/projects')).status).toBe(401);
  });

  it('does not bring back a session logged out after its background lookup was asked for', async () => {
    const { client } = await signedInClient(t.app);
    const token = client.cookie.slice(client.cookie.indexOf('=') + 1);
    expect((await client.get('/api/projects')).status).toBe(200);
    t.advance(850);
    expect(recentSessionUser(t.deps, token), 'still recent; starts the background lookup').toBeDefined();
    await new Promise((resolve) => setImmediate(resolve)); // the lookup has been asked for
    await logout(t.deps, token);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(recentSessionUser(t.deps, token)).toBeUndefined();
    expect((await client.get('/api/projects')).status).toBe(401);
  });
});
