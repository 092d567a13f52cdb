import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '@/server/testing/test-app.js';
import {
  callsBy,
  createProxiedTestApp,
  LONG_TEST_MS,
  newTask,
  type ProxiedTestApp,
  phaseSequence,
  post,
  runRow,
  startOk,
  statusOf,
  taskEvents,
  taskStatusOf,
} from './testing/run-kit.js';

let app: ProxiedTestApp;
let t: TestApp;

beforeAll(async () => {
  app = await createProxiedTestApp();
  ({ t } = app);
});
afterAll(() => app.close());

const requestsOf = (runId: string, agent: string) => app.requestsOf(runId, agent);

async function startAndSettle(scenario: string, title = 'Add greeting helper') {
  const setup = await newTask(t, { title });
  const runId = await startOk(setup.client, setup.taskId, { scenario });
  await t.deps.orchestrator.idle();
  return { ...setup, runId };
}

function retry(client: Parameters<typeof post>[0], taskId: string, body: Record<string, unknown> = {}) {
  return post<{ runId: string; retryCount: number; delayMs: number }>(
    client,
    `/api/pipeline/${taskId}/retry`,
    body,
  );
}

describe('a rate limit on the coder (429)', () => {
  it(
    'pauses at the coder, keeps the task in Building, and a retry resumes there and passes',
    async () => {
      const { client, taskId, runId } = await startAndSettle('error=429@coder');
      const paused = await statusOf(client, taskId);
      expect(paused).toMatchObject({ status: 'paused', phase: 'paused' });
      expect(paused.completedAt).toBeNull();
      expect(paused.errorDetails).toMatchObject({
        type: 'api_error',
        statusCode: 429,
        failedAgent: 'coder',
        failedPhase: 'coding',
        retryable: true,
        retryCount: 0,
        maxRetries: 3,
      });
      expect(await taskStatusOf(client, taskId)).toBe('building');
      expect(callsBy(paused, 'planner')).toBe(1);
      expect(callsBy(paused, 'coder')).toBe(0);

      const events = await taskEvents(t, taskId);
      const error = events.find((e) => e.type === 'error');
      expect(error?.data).toMatchObject({ runId, statusCode: 429, failedAgent: 'coder', retryable: true });
      expect(events.at(-1)).toMatchObject({
        type: 'phase-change',
        data: { phase: 'paused', status: 'paused' },
      });

      const res = await retry(client, taskId);
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ runId, retryCount: 1 });
      await t.deps.orchestrator.idle();

      const passed = await statusOf(client, taskId);
      expect(passed).toMatchObject({ runId, status: 'passed', phase: 'completed', errorDetails: null });
      expect(callsBy(passed, 'planner')).toBe(1);
      expect(callsBy(passed, 'coder')).toBe(passed.subtasks.length);
      expect(requestsOf(runId, 'planner')).toHaveLength(1);
      expect(await taskStatusOf(client, taskId)).toBe('review');

      const after = await taskEvents(t, taskId);
      expect(after.map((e) => e.id)).toEqual(after.map((_, i) => i + 1));
      const retrying = after.filter(
        (e) => e.type === 'agent-log' && e.data.agent === 'coder' && e.data.chunk.includes('Retrying in'),
      );
      expect(retrying).toHaveLength(1);
      expect(phaseSequence(after).slice(-3)).toEqual(['coding', 'reviewing', 'completed']);
    },
    LONG_TEST_MS,
  );
});

describe('an overloaded planner (529 four times)', () => {
  it(
    'pauses three times, fails on the third retry (not retryable), and refuses a fourth',
    async () => {
      const scenario = 'error=529@planner x4';
      const { client, taskId, runId } = await startAndSettle(scenario);
      for (let retryCount = 0; retryCount < 3; retryCount++) {
        const paused = await statusOf(client, taskId);
        expect(paused.status).toBe('paused');
        expect(paused.errorDetails).toMatchObject({
          type: 'api_error',
          statusCode: 529,
          failedAgent: 'planner',
          failedPhase: 'planning',
          retryable: true,
          retryCount,
        });
        expect(await taskStatusOf(client, taskId)).toBe('spec');
        const res = await retry(client, taskId, { scenario });
        expect(res.status).toBe(202);
        expect(res.body.retryCount).toBe(retryCount + 1);
        // The wait doubles each time (1 s, 2 s, 4 s; the test app's base is 1 ms).
        expect(res.body.delayMs).toBe(2 ** retryCount);
        await t.deps.orchestrator.idle();
      }
      const failed = await statusOf(client, taskId);
      expect(failed).toMatchObject({ status: 'failed', phase: 'failed' });
      expect(failed.completedAt).not.toBeNull();
      expect(failed.errorDetails).toMatchObject({ statusCode: 529, retryable: false, retryCount: 3 });
      expect(await taskStatusOf(client, taskId)).toBe('backlog');
      expect(requestsOf(runId, 'planner')).toHaveLength(4);

      const events = await taskEvents(t, taskId);
      expect(events.at(-1)).toMatchObject({ type: 'pipeline-complete', data: { result: 'failed', runId } });
      expect(events.filter((e) => e.type === 'error')).toHaveLength(4);

      const fourth = await retry(client, taskId, { scenario });
      expect(fourth.status).toBe(400);
      expect(fourth.body.error).toBe('INVALID_PIPELINE_STATE');
      // A failed run gives its worktree back; the task can start afresh.
      const row = await runRow(t, runId);
      expect(row.worktreePath && existsSync(row.worktreePath)).toBe(false);
      expect(
        (await post(client, `/api/tasks/${taskId}/start-pipeline`, { provider: 'simulator' })).status,
      ).toBe(202);
      await t.deps.orchestrator.idle();
      expect((await statusOf(client, taskId)).status).toBe('passed');
    },
    LONG_TEST_MS,
  );
});

describe('other provider failures pause the run', () => {
  it.each([
    ['error=500@reviewer', 'reviewer', 'reviewing', 500],
    ['error=503@coder', 'coder', 'coding', 503],
    ['stream-error=529@coder', 'coder', 'coding', undefined],
    ['stream-error=500@planner', 'planner', 'planning', undefined],
    ['drop@reviewer', 'reviewer', 'reviewing', undefined],
  ] as const)(
    '%s → paused at the %s, retryable',
    async (scenario, agent, phase, statusCode) => {
      const { client, taskId } = await startAndSettle(scenario);
      const paused = await statusOf(client, taskId);
      expect(paused.status).toBe('paused');
      expect(paused.errorDetails).toMatchObject({
        failedAgent: agent,
        failedPhase: phase,
        retryable: true,
        retryCount: 0,
      });
      if (statusCode) expect(paused.errorDetails?.statusCode).toBe(statusCode);
      expect(['api_error', 'timeout']).toContain(paused.errorDetails?.type);
      expect(paused.errorDetails?.message).toBeTruthy();
      expect(await taskStatusOf(client, taskId)).toBe(agent === 'planner' ? 'spec' : 'building');
      // The failed call is not recorded as a call; what succeeded before it is.
      expect(callsBy(paused, agent)).toBe(0);
    },
    LONG_TEST_MS,
  );
});

describe('an API key the provider refuses (401)', () => {
  it(
    'fails the run at once, not retryable, task back to Backlog; retry is refused',
    async () => {
      const { client, taskId, runId } = await startAndSettle('error=401@planner');
      const failed = await statusOf(client, taskId);
      expect(failed).toMatchObject({ status: 'failed', phase: 'failed' });
      expect(failed.errorDetails).toMatchObject({
        type: 'api_error',
        statusCode: 401,
        failedAgent: 'planner',
        retryable: false,
      });
      expect(await taskStatusOf(client, taskId)).toBe('backlog');
      expect(requestsOf(runId, 'planner')).toHaveLength(1);
      const events = await taskEvents(t, taskId);
      expect(events.some((e) => e.type === 'phase-change' && e.data.phase === 'paused')).toBe(false);
      expect(events.at(-1)).toMatchObject({ type: 'pipeline-complete', data: { result: 'failed' } });
      const res = await retry(client, taskId);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('INVALID_PIPELINE_STATE');
    },
    LONG_TEST_MS,
  );
});

describe('retry preconditions', () => {
  it('refuses a retry when nothing is paused', async () => {
    const { client, taskId } = await newTask(t);
    const res = await retry(client, taskId);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('INVALID_PIPELINE_STATE');
  });
});
