import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task, TaskCard } from '@/contracts/tasks.js';
import { pipelineRuns } from '@/server/db/schema.js';
import { createTestApp, signedInClient, type TestApp } from '@/server/testing/test-app.js';

// The cards are written as JSON by the database (tasks.repo.ts, listCardsJson): the same JSON as
// the TaskCard the board reads, byte for byte as JSON.stringify would write it.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

const listUrl = (projectId: string, query = '') => `/api/tasks?projectId=${projectId}${query}`;

describe('the board cards', () => {
  it('writes each card as JSON.stringify would: escapes, numbers, runs with and without a subtask', async () => {
    const { client, projectId } = await signedInClient(t.app);
    const title = 'Quote " backslash \\ tab \t newline \n bell \u0007 é 💥';
    const { body: odd } = await client.post<Task>('/api/tasks', { projectId, title });
    expect(odd.title).toContain('" backslash \\ tab');
    const { body: planned } = await client.post<Task>('/api/tasks', { projectId, title: 'Planned' });
    const { body: overrun } = await client.post<Task>('/api/tasks', { projectId, title: 'Overrun' });
    // A fractional place: between the first two cards of the column.
    await client.patch(`/api/tasks/${overrun.id}/status`, { status: 'backlog', position: 1 });
    const db = t.database.db;
    const steps = [1, 2].map((order) => ({ id: `s${order}`, title: 'Step', description: 'Do it', order }));
    const [plannedRun] = await db
      .insert(pipelineRuns)
      .values({
        taskId: planned.id,
        phase: 'reviewing',
        status: 'paused',
        iteration: 3,
        provider: 'openai',
        subtasks: steps,
        cursor: { phase: 'reviewing', subtaskIndex: 0, roundStart: 2, retryCount: 0 },
        startedAt: new Date('2026-03-04T05:06:07.891Z'),
      })
      .returning();
    // Microseconds the database keeps and a Date does not: the card shows milliseconds.
    await db
      .update(pipelineRuns)
      .set({ startedAt: sql`'2026-03-04T05:06:07.891999Z'::timestamptz` })
      .where(eq(pipelineRuns.id, plannedRun?.id ?? ''));
    const [overrunRun] = await db
      .insert(pipelineRuns)
      .values({
        taskId: overrun.id,
        phase: 'coding',
        status: 'running',
        provider: 'simulator',
        subtasks: steps,
        cursor: { phase: 'coding', subtaskIndex: 5, roundStart: 0, retryCount: 0 },
        startedAt: new Date('2026-03-05T00:00:00Z'),
      })
      .returning();

    const res = await t.app.request(`http://localhost${listUrl(projectId)}`, {
      headers: { host: 'localhost', cookie: client.cookie },
    });
    const text = await res.text();
    const body = JSON.parse(text) as { tasks: TaskCard[] };
    // The same bytes as JSON.stringify of the cards (no spaces, same key order, same escapes).
    expect(text).toBe(JSON.stringify(body));
    const position = (id: string) => body.tasks.find((card) => card.id === id)?.position;
    expect(body.tasks.map((card) => card.id)).toEqual([odd.id, overrun.id, planned.id]);
    expect(position(overrun.id)).toBe((odd.position + (position(planned.id) ?? 0)) / 2);
    expect(body.tasks[0]).toEqual({
      id: odd.id,
      title: odd.title,
      category: 'feature',
      priority: 'medium',
      status: 'backlog',
      position: odd.position,
      run: null,
    });
    expect(body.tasks[1]?.run).toEqual({
      id: overrunRun?.id,
      taskId: overrun.id,
      phase: 'coding',
      status: 'running',
      iteration: 0,
      simulated: true,
      subtask: { index: 2, total: 2 },
      roundStart: 0,
      startedAt: '2026-03-05T00:00:00.000Z',
    });
    expect(body.tasks[2]?.run).toEqual({
      id: plannedRun?.id,
      taskId: planned.id,
      phase: 'reviewing',
      status: 'paused',
      iteration: 3,
      simulated: false,
      subtask: null,
      roundStart: 2,
      startedAt: '2026-03-04T05:06:07.891Z',
    });
  });

  it('answers an empty board, and a filter no card matches, with no cards', async () => {
    const { client, projectId } = await signedInClient(t.app);
    expect((await client.get<{ tasks: TaskCard[] }>(listUrl(projectId))).body).toEqual({ tasks: [] });
    await client.post('/api/tasks', { projectId, title: 'Only' });
    const none = await client.get<{ tasks: TaskCard[] }>(listUrl(projectId, '&q=nothing%20like%20it'));
    expect(none.body).toEqual({ tasks: [] });
  });
});
