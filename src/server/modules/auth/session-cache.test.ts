import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessions } from '@/server/db/schema.js';
import { createTestApp, signedInClient, type TestApp } from '@/server/testing/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

describe('recently found sessions', () => {
  it('asks the database for a session at most once a second', async () => {
    const { client, projectId } = await signedInClient(t.app);
    const list = async () => {
      const before = t.database.stats.statements;
      expect((await client.get(`/api/tasks?projectId=${projectId}`)).status).toBe(200);
      return t.database.stats.statements - before;
    };
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
});
