import { gunzipSync } from 'node:zlib';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task, TaskCard } from '@/contracts/tasks.js';
import { pipelineRuns } from '@/server/db/schema.js';
import { createTestApp, signedInClient, type TestApp, type TestClient } from '@/server/testing/test-app.js';
import { cachedListCount } from './task-list.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

const listUrl = (projectId: string, query = '') => `/api/tasks?projectId=${projectId}${query}`;

async function etagOf(client: TestClient, projectId: string, query = ''): Promise<string> {
  const res = await client.get(listUrl(projectId, query));
  expect(res.status).toBe(200);
  const etag = res.headers.get('etag');
  expect(etag).toMatch(/^W\/"\d+-[\w-]+"$/);
  return etag ?? '';
}

const revalidate = (client: TestClient, projectId: string, etag: string, query = '') =>
  client.request('GET', listUrl(projectId, query), undefined, { 'if-none-match': etag });

describe('the board list', () => {
  it('answers slim cards, and whole tasks with ?view=full', async () => {
    const { client, projectId } = await signedInClient(t.app);
    const { body: task } = await client.post<Task>('/api/tasks', {
      projectId,
      title: 'Card',
      description: 'A long story the card does not show',
      category: 'bug',
      priority: 'high',
    });
    const cards = await client.get<{ tasks: TaskCard[] }>(listUrl(projectId));
    expect(cards.body.tasks).toEqual([
      {
        id: task.id,
        title: 'Card',
        category: 'bug',
        priority: 'high',
        status: 'backlog',
        position: task.position,
        run: null,
      },
    ]);
    expect(cards.headers.get('cache-control')).toBe('private, no-cache');

    const full = await client.get<{ tasks: Task[] }>(listUrl(projectId, '&view=full'));
    expect(full.body.tasks).toEqual([task]);
    expect(full.headers.get('etag')).not.toBe(cards.headers.get('etag'));
    expect((await client.get(listUrl(projectId, '&view=all'))).status).toBe(400);
  });

  it("shows each card's latest run as the card renders it", async () => {
    const { client, projectId } = await signedInClient(t.app);
    const { body: task } = await client.post<Task>('/api/tasks', { projectId, title: 'Runs' });
    const db = t.database.db;
    await db.insert(pipelineRuns).values({
      taskId: task.id,
      status: 'failed',
      startedAt: new Date('2026-01-01T00:00:00Z'),
    });
    const [latest] = await db
      .insert(pipelineRuns)
      .values({
        taskId: task.id,
        phase: 'coding',
        status: 'running',
        iteration: 1,
        provider: 'simulator',
        subtasks: [1, 2, 3].map((order) => ({ id: `s${order}`, title: 'Step', description: 'Do it', order })),
        cursor: { phase: 'coding', subtaskIndex: 1, roundStart: 0, retryCount: 0 },
        startedAt: new Date('2026-01-02T00:00:00Z'),
      })
      .returning();
    const { body } = await client.get<{ tasks: TaskCard[] }>(listUrl(projectId));
    expect(body.tasks[0]?.run).toEqual({
      id: latest?.id,
      taskId: task.id,
      phase: 'coding',
      status: 'running',
      iteration: 1,
      simulated: true,
      subtask: { index: 2, total: 3 },
      roundStart: 0,
      startedAt: '2026-01-02T00:00:00.000Z',
    });
  });

  it('answers 304 to a matching If-None-Match, per filter, and 200 to a stale one', async () => {
    const { client, projectId } = await signedInClient(t.app);
    await client.post('/api/tasks', { projectId, title: 'One' });
    const etag = await etagOf(client, projectId);
    const notModified = await revalidate(client, projectId, etag);
    expect(notModified.status).toBe(304);
    expect(notModified.body).toBeNull();
    expect(notModified.headers.get('etag')).toBe(etag);
    expect((await revalidate(client, projectId, `W/"x", ${etag}`)).status).toBe(304);
    // Another filter at the same version is another list.
    expect((await revalidate(client, projectId, etag, '&q=one')).status).toBe(200);
    expect((await revalidate(client, projectId, 'W/"0-nope"')).status).toBe(200);
  });

  it('changes its ETag on every write the board shows', async () => {
    const { client, projectId } = await signedInClient(t.app);
    const seen = new Set<string>();
    const changed = async (what: string) => {
      const etag = await etagOf(client, projectId);
      expect(seen.has(etag), `${what} left the ETag as it was`).toBe(false);
      seen.add(etag);
      return etag;
    };
    await changed('nothing');
    const { body: task } = await client.post<Task>('/api/tasks', { projectId, title: 'A' });
    const { body: other } = await client.post<Task>('/api/tasks', { projectId, title: 'B' });
    await changed('create');
    await client.patch(`/api/tasks/${task.id}`, { title: 'A2' });
    await changed('update');
    await client.patch(`/api/tasks/${task.id}/status`, { status: 'spec' });
    await changed('move');
    await client.patch(`/api/tasks/${other.id}/status`, { status: 'backlog', position: 0 });
    await changed('reorder');

    const db = t.database.db;
    const [run] = await db.insert(pipelineRuns).values({ taskId: task.id, status: 'running' }).returning();
    await changed('run start');
    await db
      .update(pipelineRuns)
      .set({ phase: 'coding' })
      .where(eq(pipelineRuns.id, run?.id ?? ''));
    await changed('run phase');
    const unchanged = await etagOf(client, projectId);
    await db
      .update(pipelineRuns)
      .set({ inputTokens: 10, costUsd: 0.5 })
      .where(eq(pipelineRuns.id, run?.id ?? ''));
    expect(await etagOf(client, projectId), 'usage the card does not show').toBe(unchanged);
    await db
      .update(pipelineRuns)
      .set({ status: 'failed' })
      .where(eq(pipelineRuns.id, run?.id ?? ''));
    const afterRun = await changed('run status');
    const { body: cards } = await client.get<{ tasks: TaskCard[] }>(listUrl(projectId));
    expect(cards.tasks.find((card) => card.id === task.id)?.run?.status).toBe('failed');

    await client.delete(`/api/tasks/${other.id}`);
    await changed('delete');
    expect((await revalidate(client, projectId, afterRun)).status).toBe(200);
  });

  it('keeps one list per project and filters, the newest: a write makes the next list fresh', async () => {
    const { client, projectId } = await signedInClient(t.app);
    const { body: task } = await client.post<Task>('/api/tasks', { projectId, title: 'Mover' });
    const db = t.database.db;
    let etag = await etagOf(client, projectId);
    for (const status of ['spec', 'backlog', 'spec'] as const) {
      await client.patch(`/api/tasks/${task.id}/status`, { status });
      const res = await revalidate(client, projectId, etag);
      expect(res.status).toBe(200);
      expect(res.headers.get('etag')).not.toBe(etag);
      expect((res.body as { tasks: TaskCard[] }).tasks[0]?.status).toBe(status);
      etag = res.headers.get('etag') ?? '';
      expect((await revalidate(client, projectId, etag)).status).toBe(304);
    }
    // Three versions listed, one list kept; a search is another, and so are whole tasks.
    expect(cachedListCount(db, projectId)).toBe(1);
    await client.get(listUrl(projectId, '&q=mover'));
    expect(cachedListCount(db, projectId)).toBe(2);
    const full = async () => (await client.get<{ tasks: Task[] }>(listUrl(projectId, '&view=full'))).body;
    expect((await full()).tasks[0]?.title).toBe('Mover');
    await client.patch(`/api/tasks/${task.id}`, { title: 'Renamed' });
    expect((await full()).tasks[0]?.title).toBe('Renamed');
    expect(cachedListCount(db, projectId)).toBe(3);
  });

  it('costs one statement once cached: the board version (the session was found within the second)', async () => {
    const { client, projectId } = await signedInClient(t.app);
    await client.post('/api/tasks', { projectId, title: 'Cheap' });
    const etag = await etagOf(client, projectId);
    const stats = t.database.stats;
    const before = stats.statements;
    expect((await client.get(listUrl(projectId))).status).toBe(200);
    expect((await revalidate(client, projectId, etag)).status).toBe(304);
    expect(stats.statements - before).toBe(2);
  });

  it("keeps another user's project behind 404, with or without an ETag", async () => {
    const alice = await signedInClient(t.app);
    const bob = await signedInClient(t.app);
    await alice.client.post('/api/tasks', { projectId: alice.projectId, title: 'Secret' });
    const etag = await etagOf(alice.client, alice.projectId);
    expect((await bob.client.get(listUrl(alice.projectId))).status).toBe(404);
    const probe = await revalidate(bob.client, alice.projectId, etag);
    expect(probe.status).toBe(404);
    expect(probe.body).toMatchObject({ error: 'PROJECT_NOT_FOUND' });
  });

  it('gzips the list for clients that accept it', async () => {
    const { client, projectId } = await signedInClient(t.app);
    for (let i = 0; i < 20; i++) await client.post('/api/tasks', { projectId, title: `Task number ${i}` });
    const res = await t.app.request(`http://localhost${listUrl(projectId)}`, {
      headers: { host: 'localhost', cookie: client.cookie, 'accept-encoding': 'gzip, br' },
    });
    expect(res.headers.get('content-encoding')).toBe('gzip');
    const body = JSON.parse(gunzipSync(Buffer.from(await res.arrayBuffer())).toString('utf8'));
    expect(body.tasks).toHaveLength(20);
  });

  it('loads the whole task for the drawer, and hides it from others', async () => {
    const alice = await signedInClient(t.app);
    const bob = await signedInClient(t.app);
    const { body: task } = await alice.client.post<Task>('/api/tasks', {
      projectId: alice.projectId,
      title: 'Drawer',
      description: 'All of it',
    });
    const res = await alice.client.get<Task>(`/api/tasks/${task.id}`);
    expect(res.body).toEqual(task);
    expect((await bob.client.get(`/api/tasks/${task.id}`)).status).toBe(404);
  });
});
