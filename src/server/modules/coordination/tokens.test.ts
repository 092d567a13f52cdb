import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { PostStatusResponse } from '@/contracts/coordination.js';
import { agentTokens } from '@/server/db/schema.js';
import { LOCK_STORES } from '@/server/testing/lock-stores.js';
import { signedInClient, TestClient } from '@/server/testing/test-app.js';
import { AgentClient, fx, newAgent, useCoordinationApp } from './testing/fixture.js';

/** Agent tokens and who may call the coordination routes (issue 9, "Who is an agent"), over REST. */
describe.each(LOCK_STORES.filter(([, available]) => available))(
  'over the %s lock store',
  (_name, _available, makeStore) => {
    useCoordinationApp(makeStore);

    describe('agent tokens', () => {
      it('shows a token once, keeps only its SHA-256, lists without secrets and revokes', async () => {
        const created = await fx.owner.post<{ id: string; name: string; token: string }>('/api/tokens', {
          name: '  Claude on laptop ',
        });
        expect(created.status).toBe(201);
        expect(created.body).toEqual({
          id: expect.any(String),
          name: 'Claude on laptop',
          token: expect.any(String),
        });
        const { token, id } = created.body;

        const rows = await fx.t.database.db.select().from(agentTokens).where(eq(agentTokens.id, id));
        expect(rows[0]?.tokenHash).toBe(createHash('sha256').update(token).digest('hex'));
        expect(JSON.stringify(rows)).not.toContain(token);

        const list = await fx.owner.get<{ tokens: Record<string, unknown>[] }>('/api/tokens');
        const listed = list.body.tokens.find((entry) => entry.id === id);
        expect(listed).toEqual({ id, name: 'Claude on laptop', createdAt: expect.any(String) });
        expect(JSON.stringify(list.body)).not.toContain(token);

        const agent = new AgentClient(id, 'Claude on laptop', token);
        expect((await agent.check(['src/db.ts'])).status).toBe(200);
        expect((await fx.owner.delete(`/api/tokens/${id}`)).status).toBe(204);
        const after = await agent.check(['src/db.ts']);
        expect(after.status).toBe(401);
        expect((await fx.owner.delete(`/api/tokens/${id}`)).status).toBe(404);
      });

      it('refuses an empty name, and another user’s token id', async () => {
        expect((await fx.owner.post('/api/tokens', { name: '   ' })).status).toBe(400);
        const mine = await fx.owner.post<{ id: string }>('/api/tokens', { name: 'mine' });
        const stranger = (await signedInClient(fx.t.app)).client;
        expect((await stranger.delete(`/api/tokens/${mine.body.id}`)).status).toBe(404);
        expect((await stranger.get<{ tokens: unknown[] }>('/api/tokens')).body.tokens).toEqual([]);
      });

      it('manages tokens only from a session: a bearer token or nobody gets 401', async () => {
        const agent = await fx.owner.post<{ token: string }>('/api/tokens', { name: 'bot' });
        const res = await fx.t.app.request('http://localhost/api/tokens', {
          headers: { host: 'localhost', authorization: `Bearer ${agent.body.token}` },
        });
        expect(res.status).toBe(401);
        expect((await new TestClient(fx.t.app).get('/api/tokens')).status).toBe(401);
      });
    });

    describe('who may call check_status / post_status', () => {
      it('answers 401 without a token or session, and for an unknown token', async () => {
        const anonymous = await new TestClient(fx.t.app).post('/api/check_status', {
          repo_url: fx.cloneUrl,
          branch: 'main',
          file_paths: [],
        });
        expect(anonymous.status).toBe(401);
        const forged = new AgentClient('x', 'x', 'acat_not-a-real-token');
        expect((await forged.check([])).status).toBe(401);
      });

      it('lets a signed-in session act as its user', async () => {
        const res = await fx.owner.post<PostStatusResponse>('/api/post_status', {
          repo_url: fx.cloneUrl,
          branch: 'main',
          file_paths: ['session.md'],
          status: 'WRITING',
          message: 'The fx.owner edits the notes by hand',
        });
        expect(res.status).toBe(200);
        expect(res.body.success).toBe(true);
        const other = await newAgent('observer');
        const seen = await other.check(['session.md']);
        expect(seen.body.locks['session.md']).toMatchObject({
          user_name: expect.stringContaining('@example.com'),
        });
      });
    });
  },
);
