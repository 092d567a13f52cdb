import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '@/contracts/tasks.js';
import { pipelineRuns } from '@/server/db/schema.js';
import { createTestApp, signedInClient, type TestApp, type TestClient } from '@/server/testing/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

const titles = (tasks: Task[], status?: string) =>
  tasks.filter((task) => !status || task.status === status).map((task) => task.title);

async function list(client: TestClient, projectId: string, query = '') {
  const res = await client.get<{ tasks: Task[] }>(`/api/tasks?projectId=${projectId}${query}`);
  expect(res.status).toBe(200);
  return res.body.tasks;
}

describe('tasks', () => {
  it('creates a task with defaults and trims its fields', async () => {
    const { client, projectId } = await signedInClient(t.app);
    const res = await client.post<Task>('/api/tasks', {
      projectId,
      title: '  Add login  ',
      description: ' why \n',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      projectId,
      title: 'Add login',
      description: 'why',
      category: 'feature',
      priority: 'medium',
      status: 'backlog',
      subtasks: null,
    });
    expect((await client.get<Task>(`/api/tasks/${res.body.id}`)).body.title).toBe('Add login');
  });

  it('validates title, category, priority and status with field errors', async () => {
    const { client, projectId } = await signedInClient(t.app);
    const cases: [Record<string, unknown>, string][] = [
      [{ projectId }, 'title'],
      [{ projectId, title: '   ' }, 'title'],
      [{ projectId, title: 'x'.repeat(201) }, 'title'],
      [{ projectId, title: 'ok', category: 'epic' }, 'category'],
      [{ projectId, title: 'ok', priority: 'critical' }, 'priority'],
      [{ projectId, title: 'ok', status: 'done' }, 'status'],
      [{ projectId: 'nope', title: 'ok' }, 'projectId'],
      [{ projectId, title: 'ok', owner: 'me' }, ''],
    ];
    for (const [body, field] of cases) {
      const res = await client.post<{ fields: Record<string, string[]> }>('/api/tasks', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.body.fields), JSON.stringify(body)).toContain(field);
    }
    expect((await client.post('/api/tasks', { projectId, title: 'x'.repeat(200) })).status).toBe(201);
  });

  it('filters by status and category and searches title and description', async () => {
    const { client, projectId } = await signedInClient(t.app);
    await client.post('/api/tasks', { projectId, title: 'Fix crash on save', category: 'bug' });
    await client.post('/api/tasks', {
      projectId,
      title: 'Dark mode',
      description: 'Users want a CRASH-free theme',
    });
    await client.post('/api/tasks', { projectId, title: 'Write docs', category: 'docs', status: 'spec' });
    await client.post('/api/tasks', { projectId, title: '100% done_ish' });

    expect(titles(await list(client, projectId, '&category=bug'))).toEqual(['Fix crash on save']);
    expect(titles(await list(client, projectId, '&status=spec'))).toEqual(['Write docs']);
    expect(titles(await list(client, projectId, '&q=crash')).sort()).toEqual([
      'Dark mode',
      'Fix crash on save',
    ]);
    expect(titles(await list(client, projectId, '&q=crash&category=bug'))).toEqual(['Fix crash on save']);
    // LIKE wildcards in q are literal characters.
    expect(titles(await list(client, projectId, `&q=${encodeURIComponent('%')}`))).toEqual(['100% done_ish']);
    expect(titles(await list(client, projectId, '&q=_'))).toEqual(['100% done_ish']);
    expect((await client.get(`/api/tasks?projectId=${projectId}&status=archived`)).status).toBe(400);
    expect((await client.get('/api/tasks')).status).toBe(400);
  });

  it('updates fields, including the subtasks JSON, and deletes tasks with their runs', async () => {
    const { client, projectId } = await signedInClient(t.app);
    const { body: task } = await client.post<Task>('/api/tasks', { projectId, title: 'Old' });
    const subtasks = [{ id: 's1', title: 'Step', description: 'Do it', order: 1 }];
    const res = await client.patch<Task>(`/api/tasks/${task.id}`, {
      title: 'New',
      priority: 'urgent',
      subtasks,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ title: 'New', priority: 'urgent', subtasks });
    // A run's state is the run's (GET /api/pipeline/:taskId/status): a task has no pipelineState to show or set.
    expect(res.body).not.toHaveProperty('pipelineState');
    const state = await client.patch(`/api/tasks/${task.id}`, { pipelineState: { phase: 'planning' } });
    expect(state.status).toBe(400);
    expect((await client.patch(`/api/tasks/${task.id}`, {})).status).toBe(400);
    expect((await client.patch(`/api/tasks/${task.id}`, { status: 'done' })).status).toBe(400);

    await t.database.db.insert(pipelineRuns).values({ taskId: task.id, status: 'running' });
    expect((await client.delete(`/api/tasks/${task.id}`)).status).toBe(409);
    await t.database.db
      .update(pipelineRuns)
      .set({ status: 'passed' })
      .where(eq(pipelineRuns.taskId, task.id));
    expect((await client.delete(`/api/tasks/${task.id}`)).status).toBe(204);
    expect((await client.get(`/api/tasks/${task.id}`)).status).toBe(404);
    const runs = await t.database.db.select().from(pipelineRuns).where(eq(pipelineRuns.taskId, task.id));
    expect(runs).toEqual([]);
  });

  it("hides another user's tasks behind 404", async () => {
    const alice = await signedInClient(t.app);
    const bob = await signedInClient(t.app);
    const { body: task } = await alice.client.post<Task>('/api/tasks', {
      projectId: alice.projectId,
      title: 'Secret',
    });
    expect((await bob.client.get(`/api/tasks/${task.id}`)).status).toBe(404);
    expect((await bob.client.patch(`/api/tasks/${task.id}`, { title: 'Mine' })).status).toBe(404);
    expect((await bob.client.patch(`/api/tasks/${task.id}/status`, { status: 'spec' })).status).toBe(404);
    expect((await bob.client.delete(`/api/tasks/${task.id}`)).status).toBe(404);
    expect((await bob.client.get(`/api/tasks?projectId=${alice.projectId}`)).status).toBe(404);
    expect(
      (await bob.client.post('/api/tasks', { projectId: alice.projectId, title: 'Intruder' })).status,
    ).toBe(404);
    expect((await alice.client.get<Task>(`/api/tasks/${task.id}`)).body.title).toBe('Secret');
  });
});

describe('moving tasks', () => {
  it('allows backlog ↔ spec and refuses moves the pipeline or approval own, naming the allowed ones', async () => {
    const { client, projectId } = await signedInClient(t.app);
    const { body: task } = await client.post<Task>('/api/tasks', { projectId, title: 'Move me' });
    for (const status of ['building', 'review', 'done']) {
      const res = await client.patch(`/api/tasks/${task.id}/status`, { status });
      expect(res.status, status).toBe(400);
      expect(res.body).toMatchObject({ error: 'INVALID_TRANSITION', from: 'backlog', allowed: ['spec'] });
    }
    const toSpec = await client.patch<Task>(`/api/tasks/${task.id}/status`, { status: 'spec' });
    expect(toSpec.status).toBe(200);
    expect(toSpec.body.status).toBe('spec');
    const done = await client.patch(`/api/tasks/${task.id}/status`, { status: 'done' });
    expect(done.body).toMatchObject({ error: 'INVALID_TRANSITION', allowed: ['backlog'] });
    expect(
      (await client.patch<Task>(`/api/tasks/${task.id}/status`, { status: 'backlog' })).body.status,
    ).toBe('backlog');
    expect((await client.patch(`/api/tasks/${task.id}/status`, { status: 'nowhere' })).status).toBe(400);
  });

  it('orders cards within a column and keeps the order', async () => {
    const { client, projectId } = await signedInClient(t.app);
    const ids: Record<string, string> = {};
    for (const title of ['A', 'B', 'C', 'D']) {
      ids[title] = (await client.post<Task>('/api/tasks', { projectId, title })).body.id;
    }
    expect(titles(await list(client, projectId))).toEqual(['A', 'B', 'C', 'D']);
    await client.patch(`/api/tasks/${ids.D}/status`, { status: 'backlog', position: 0 });
    expect(titles(await list(client, projectId))).toEqual(['D', 'A', 'B', 'C']);
    await client.patch(`/api/tasks/${ids.D}/status`, { status: 'backlog', position: 2 });
    expect(titles(await list(client, projectId))).toEqual(['A', 'B', 'D', 'C']);
    await client.patch(`/api/tasks/${ids.A}/status`, { status: 'backlog', position: 99 });
    expect(titles(await list(client, projectId))).toEqual(['B', 'D', 'C', 'A']);
    await client.patch(`/api/tasks/${ids.C}/status`, { status: 'spec', position: 0 });
    await client.patch(`/api/tasks/${ids.B}/status`, { status: 'spec', position: 0 });
    const all = await list(client, projectId);
    expect(titles(all, 'backlog')).toEqual(['D', 'A']);
    expect(titles(all, 'spec')).toEqual(['B', 'C']);
  });

  it('keeps a consistent order through many moves into the same gap (renumbering)', async () => {
    const { client, projectId } = await signedInClient(t.app);
    const a = (await client.post<Task>('/api/tasks', { projectId, title: 'first' })).body.id;
    const b = (await client.post<Task>('/api/tasks', { projectId, title: 'last' })).body.id;
    const expected = ['first'];
    for (let i = 0; i < 60; i++) {
      const id = (await client.post<Task>('/api/tasks', { projectId, title: `n${i}` })).body.id;
      // Always between "first" and the previously inserted one: halves the same gap each time.
      await client.patch(`/api/tasks/${id}/status`, { status: 'backlog', position: 1 });
      expected.splice(1, 0, `n${i}`);
    }
    expected.push('last');
    expect(titles(await list(client, projectId))).toEqual(expected);
    expect(a && b).toBeTruthy();
  });
});

describe('concurrent moves', () => {
  it('serialises moves within a project: all succeed and every card keeps a distinct place', async () => {
    const { client, projectId } = await signedInClient(t.app);
    const ids: string[] = [];
    for (let i = 0; i < 30; i++)
      ids.push((await client.post<Task>('/api/tasks', { projectId, title: `c${i}` })).body.id);
    // Everyone aims at the same gap at once: without serialisation they collide and renumberings deadlock.
    const results = await Promise.all(
      ids.map((id, i) =>
        client.patch(`/api/tasks/${id}/status`, { status: i % 2 ? 'spec' : 'backlog', position: 1 }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(ids.map(() => 200));
    const all = await list(client, projectId);
    expect(all).toHaveLength(30);
    for (const status of ['backlog', 'spec']) {
      const positions = all.filter((task) => task.status === status).map((task) => task.position);
      expect(new Set(positions).size).toBe(positions.length);
    }
  });

  it('refuses to move a task to another column while a pipeline works on it', async () => {
    const { client, projectId } = await signedInClient(t.app);
    const { body: task } = await client.post<Task>('/api/tasks', {
      projectId,
      title: 'Busy',
      status: 'spec',
    });
    await t.database.db.insert(pipelineRuns).values({ taskId: task.id, status: 'running' });
    const res = await client.patch(`/api/tasks/${task.id}/status`, { status: 'backlog' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: 'INVALID_TRANSITION',
      message: expect.stringMatching(/Cancel it/),
    });
    expect((await client.patch(`/api/tasks/${task.id}/status`, { status: 'spec', position: 0 })).status).toBe(
      200,
    );
  });
});
