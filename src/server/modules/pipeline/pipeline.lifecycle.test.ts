import { afterEach, describe, expect, it } from 'vitest';
import type { RunUpdateData, StoredEvent } from '@/contracts/pipeline.js';
import { createTestApp, type TestApp } from '@/server/testing/test-app.js';
import {
  LONG_TEST_MS,
  newTask,
  post,
  projectEvents,
  runToEnd,
  startOk,
  statusOf,
  taskEvents,
} from './testing/run-kit.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const runUpdates = (events: StoredEvent[], runId: string): RunUpdateData[] =>
  events.flatMap((e) => (e.type === 'run-update' && e.data.run.id === runId ? [e.data] : []));

describe("a run's summary on the task's stream", () => {
  it(
    'is sent there as on the project stream: the same run-update events, in the same order, in order with the phases',
    async () => {
      t = await createTestApp();
      const { client, taskId, projectId } = await newTask(t);
      const run = await runToEnd(t, client, taskId);
      expect(run.status).toBe('passed');

      const onTask = await taskEvents(t, taskId);
      const onBoard = runUpdates(await projectEvents(t, projectId), run.runId);
      expect(runUpdates(onTask, run.runId)).toEqual(onBoard);
      expect(onBoard.at(-1)?.run).toMatchObject({ status: 'passed', phase: 'completed' });
      // Reduced in order, the task's stream alone ends with the run as the status route shows it.
      const last = onTask.filter((e) => e.type === 'run-update').at(-1);
      expect(last?.type === 'run-update' && last.data.run).toMatchObject({
        id: run.runId,
        status: run.status,
        phase: run.phase,
        iteration: run.iteration,
        headCommit: run.headCommit,
      });
      // Each phase-change follows the run-update of the write that made it.
      for (const [i, e] of onTask.entries()) {
        if (e.type !== 'phase-change' || e.data.status === 'running') continue;
        const before = onTask
          .slice(0, i)
          .filter((x) => x.type === 'run-update')
          .at(-1);
        expect(before?.type === 'run-update' && before.data.run.status).toBe(e.data.status);
      }
    },
    LONG_TEST_MS,
  );
});

describe('a shutdown while a retried run waits for its backoff', () => {
  it(
    "pauses the run as interrupted and tells the run's own project stream, not a stream without a project",
    async () => {
      t = await createTestApp({ runtime: { backoffBaseMs: 60_000 } });
      const { client, taskId, projectId } = await newTask(t);
      const runId = await startOk(client, taskId, { scenario: 'error=500@planner' });
      await t.deps.orchestrator.idle();
      expect((await statusOf(client, taskId)).status).toBe('paused');

      const retried = await post<{ delayMs: number }>(client, `/api/pipeline/${taskId}/retry`, {
        provider: 'simulator',
      });
      expect(retried.status).toBe(202);
      expect(retried.body.delayMs).toBe(60_000);
      expect((await statusOf(client, taskId)).status).toBe('running');

      await t.deps.orchestrator.shutdown();

      const run = await statusOf(client, taskId);
      expect(run).toMatchObject({ status: 'paused', errorDetails: { type: 'interrupted' } });
      const board = runUpdates(await projectEvents(t, projectId), runId);
      expect(board.at(-1)?.run).toMatchObject({ status: 'paused', errorDetails: { type: 'interrupted' } });
      expect(await t.deps.events.replay('project:', 0)).toEqual([]);
    },
    LONG_TEST_MS,
  );
});

describe("a run's time limit (AUTOCODER_RUN_TIMEOUT_MS)", () => {
  it(
    'pauses a run that works past it with a retryable run_timeout error; Retry resumes it with a new limit',
    async () => {
      t = await createTestApp({ runtime: { runTimeoutMs: 1500 } });
      const { client, taskId } = await newTask(t);
      // The agents answer slowly: the run is surely past its limit while the planner is at work.
      const scenario = 'slow=2000';
      await startOk(client, taskId, { scenario });
      await t.deps.orchestrator.idle();
      const paused = await statusOf(client, taskId);
      expect(paused).toMatchObject({
        status: 'paused',
        phase: 'paused',
        errorDetails: { type: 'run_timeout', retryable: true, failedPhase: 'planning', retryCount: 0 },
      });
      expect(paused.errorDetails?.message).toMatch(/longer than 1500 ms/);

      // Retry gives the run a new limit from its resumption: it works again, and stops at the limit again.
      const retried = await post(client, `/api/pipeline/${taskId}/retry`, {
        provider: 'simulator',
        scenario,
      });
      expect(retried.status).toBe(202);
      await t.deps.orchestrator.idle();
      expect(await statusOf(client, taskId)).toMatchObject({
        status: 'paused',
        errorDetails: { type: 'run_timeout', retryCount: 1 },
      });
      const errors = (await taskEvents(t, taskId)).filter((e) => e.type === 'error');
      expect(errors.map((e) => e.type === 'error' && e.data.type)).toEqual(['run_timeout', 'run_timeout']);
    },
    LONG_TEST_MS,
  );
});
