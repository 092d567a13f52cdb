import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '@/server/testing/test-app.js';
import {
  history,
  isPhase,
  LONG_TEST_MS,
  newTask,
  post,
  runToEnd,
  startOk,
  startRun,
  statusOf,
  type TaskSetup,
  taskStatusOf,
  waitForEvent,
} from './testing/run-kit.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

/**
 * Slow enough that a run is still planning while the test looks at it: the simulator waits
 * this long before each chunk, so the plan alone takes tens of seconds. Such runs are cancelled.
 */
const SLOW = { scenario: 'slow=100' };

async function cancel(setup: Pick<TaskSetup, 'client' | 'taskId'>) {
  const res = await post(setup.client, `/api/pipeline/${setup.taskId}/cancel`);
  expect(res.status).toBe(200);
}

describe('start-pipeline: API keys (per request, never stored, format-checked)', () => {
  it('asks for a key when the Anthropic provider has none: 400 INVALID_API_KEY, nothing started', async () => {
    const { client, taskId } = await newTask(t);
    const res = await startRun(client, taskId, { provider: 'anthropic' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('INVALID_API_KEY');
    expect((await client.get(`/api/pipeline/${taskId}/status`)).body).toEqual({ status: 'none' });
    expect(await taskStatusOf(client, taskId)).toBe('backlog');
  });

  it('refuses a malformed x-anthropic-key without repeating it', async () => {
    const { client, taskId } = await newTask(t);
    for (const key of ['not-a-key-SECRETVALUE123', 'sk-ant-short', 'sk-ant-has spaces SECRETVALUE456']) {
      const res = await startRun(client, taskId, { provider: 'anthropic' }, { 'x-anthropic-key': key });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('INVALID_API_KEY');
      const text = JSON.stringify(res.body);
      expect(text).not.toContain(key);
      expect(text).not.toContain('SECRETVALUE');
    }
  });
});

describe('start-pipeline: preconditions', () => {
  it('answers 202 with only the run id, before the work is done (the task moves to Spec)', async () => {
    const setup = await newTask(t);
    const res = await startRun(setup.client, setup.taskId, SLOW);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ runId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(await statusOf(setup.client, setup.taskId)).toMatchObject({
      runId: res.body.runId,
      status: 'running',
      iteration: 0,
      completedAt: null,
    });
    expect(await taskStatusOf(setup.client, setup.taskId)).toBe('spec');
    await cancel(setup);
    await t.deps.orchestrator.idle();
  });

  it('refuses a second start while a run is active: 409 PIPELINE_ACTIVE', async () => {
    const setup = await newTask(t);
    await startOk(setup.client, setup.taskId, SLOW);
    const second = await startRun(setup.client, setup.taskId);
    expect(second.status).toBe(409);
    expect(second.body.error).toBe('PIPELINE_ACTIVE');
    const both = await Promise.all([
      startRun(setup.client, setup.taskId),
      startRun(setup.client, setup.taskId),
    ]);
    expect(both.map((r) => r.status)).toEqual([409, 409]);
    await cancel(setup);
    await t.deps.orchestrator.idle();
    expect((await history(setup.client, setup.taskId)).body.runs).toHaveLength(1);
  });

  it('lets only one of two simultaneous starts through', async () => {
    const setup = await newTask(t);
    const results = await Promise.all([
      startRun(setup.client, setup.taskId, SLOW),
      startRun(setup.client, setup.taskId, SLOW),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([202, 409]);
    await cancel(setup);
    await t.deps.orchestrator.idle();
    expect((await history(setup.client, setup.taskId)).body.runs).toHaveLength(1);
  });

  it(
    'refuses a task that is not in Backlog or Spec: 400 INVALID_PIPELINE_STATE',
    async () => {
      const { client, taskId } = await newTask(t);
      await runToEnd(t, client, taskId);
      expect(await taskStatusOf(client, taskId)).toBe('review');
      const res = await startRun(client, taskId);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('INVALID_PIPELINE_STATE');
    },
    LONG_TEST_MS,
  );

  it('starts from Spec as well as Backlog', async () => {
    const setup = await newTask(t);
    expect((await setup.client.patch(`/api/tasks/${setup.taskId}/status`, { status: 'spec' })).status).toBe(
      200,
    );
    await startOk(setup.client, setup.taskId, SLOW);
    await cancel(setup);
    await t.deps.orchestrator.idle();
  });

  it(
    'allows five running pipelines per user; the sixth gets 429 TOO_MANY_PIPELINES',
    async () => {
      const first = await newTask(t);
      const user = { client: first.client, userId: first.userId, projectId: first.projectId };
      const tasks = [first];
      for (let i = 1; i < 6; i++) tasks.push(await newTask(t, { user, title: `Task ${i}` }));
      try {
        for (const task of tasks.slice(0, 5)) await startOk(task.client, task.taskId, SLOW);
        const sixth = tasks[5]!;
        const res = await startRun(sixth.client, sixth.taskId, SLOW);
        expect(res.status).toBe(429);
        expect(res.body.error).toBe('TOO_MANY_PIPELINES');
        expect(await taskStatusOf(sixth.client, sixth.taskId)).toBe('backlog');

        // Another user is not limited by this one's runs.
        const other = await newTask(t);
        await startOk(other.client, other.taskId, SLOW);
        await cancel(other);

        // A cancelled run frees its place.
        await cancel(tasks[0]!);
        await startOk(sixth.client, sixth.taskId, SLOW);
      } finally {
        for (const task of tasks) await post(task.client, `/api/pipeline/${task.taskId}/cancel`);
        await t.deps.orchestrator.idle();
      }
    },
    LONG_TEST_MS,
  );
  it(
    'holds the limit when six starts of one user arrive at once',
    async () => {
      const first = await newTask(t);
      const user = { client: first.client, userId: first.userId, projectId: first.projectId };
      const tasks = [first];
      for (let i = 1; i < 6; i++) tasks.push(await newTask(t, { user, title: `Burst ${i}` }));
      try {
        const results = await Promise.all(tasks.map((task) => startRun(task.client, task.taskId, SLOW)));
        expect(results.map((r) => r.status).sort()).toEqual([202, 202, 202, 202, 202, 429]);
      } finally {
        for (const task of tasks) await post(task.client, `/api/pipeline/${task.taskId}/cancel`);
        await t.deps.orchestrator.idle();
      }
    },
    LONG_TEST_MS,
  );
  it(
    'counts paused runs and requests for changes against the limit; a retry takes no second place',
    async () => {
      const reviewed = await newTask(t, { title: 'Reviewed' });
      const user = { client: reviewed.client, userId: reviewed.userId, projectId: reviewed.projectId };
      await runToEnd(t, reviewed.client, reviewed.taskId);
      const paused = await newTask(t, { user, title: 'Paused' });
      await runToEnd(t, paused.client, paused.taskId, { scenario: 'error=500@planner' });
      expect((await statusOf(paused.client, paused.taskId)).status).toBe('paused');
      const busy: TaskSetup[] = [];
      for (let i = 0; i < 5; i++) busy.push(await newTask(t, { user, title: `Busy ${i}` }));
      try {
        // The paused run holds one of the five places: the fifth start is refused.
        for (const task of busy.slice(0, 4)) await startOk(task.client, task.taskId, SLOW);
        const fifth = await startRun(busy[4]!.client, busy[4]!.taskId, SLOW);
        expect(fifth.status).toBe(429);
        expect(fifth.body.error).toBe('TOO_MANY_PIPELINES');
        const changes = await post(reviewed.client, `/api/pipeline/${reviewed.taskId}/request-changes`, {
          feedback: 'One more thing',
        });
        expect(changes.status).toBe(429);
        expect(changes.body.error).toBe('TOO_MANY_PIPELINES');
        expect(await taskStatusOf(reviewed.client, reviewed.taskId)).toBe('review');
        // Retrying the paused run keeps the count at five: it is allowed.
        const retry = await post(paused.client, `/api/pipeline/${paused.taskId}/retry`, SLOW);
        expect(retry.status).toBe(202);
        // Cancelling it frees its place.
        await cancel(paused);
        await startOk(busy[4]!.client, busy[4]!.taskId, SLOW);
      } finally {
        for (const task of [...busy, paused]) await post(task.client, `/api/pipeline/${task.taskId}/cancel`);
        await t.deps.orchestrator.idle();
      }
    },
    LONG_TEST_MS,
  );
});

describe('status and history', () => {
  it('reports { status: "none" } for a task that never ran', async () => {
    const { client, taskId } = await newTask(t);
    const res = await client.get(`/api/pipeline/${taskId}/status`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'none' });
    expect((await history(client, taskId)).body).toEqual({ runs: [] });
  });

  it(
    'reports the run while it is planning, then lists runs newest first',
    async () => {
      const setup = await newTask(t);
      const firstRun = await startOk(setup.client, setup.taskId, SLOW);
      await waitForEvent(t, setup.taskId, isPhase('planning'), 'planning');
      const status = await statusOf(setup.client, setup.taskId);
      expect(status).toMatchObject({
        runId: firstRun,
        status: 'running',
        provider: 'simulator',
        simulated: true,
      });
      expect(status.agentLogCounts).toEqual({ planner: 0, coder: 0, reviewer: 0 });
      await cancel(setup);
      await t.deps.orchestrator.idle();

      const secondRun = await startOk(setup.client, setup.taskId);
      await t.deps.orchestrator.idle();
      const res = await history(setup.client, setup.taskId);
      expect(res.status).toBe(200);
      expect(res.body.runs.map((r) => [r.id, r.status])).toEqual([
        [secondRun, 'passed'],
        [firstRun, 'cancelled'],
      ]);
      expect((await statusOf(setup.client, setup.taskId)).runId).toBe(secondRun);
    },
    LONG_TEST_MS,
  );
});
