import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentType } from '@/contracts/pipeline.js';
import { createTestApp, type TestApp } from '@/server/testing/test-app.js';
import { type SimulatorHandle, type StreamOutcome, startSimulator } from '../llm/simulator/server.js';
import { type LlmProxy, startLlmProxy } from './testing/llm-proxy.js';
import {
  gitIn,
  isPhase,
  LONG_TEST_MS,
  newTask,
  post,
  projectEvents,
  repoOf,
  runRow,
  startOk,
  statusOf,
  type TaskSetup,
  taskEvents,
  taskStatusOf,
  WAIT_LIMIT_MS,
  waitForEvent,
  worktreePaths,
} from './testing/run-kit.js';

let t: TestApp;
let simulator: SimulatorHandle;
let proxy: LlmProxy;
const streamEnds: { agent: AgentType | undefined; runKey: string; outcome: StreamOutcome }[] = [];
const simRequests: { agent: AgentType | undefined; runKey: string }[] = [];

beforeAll(async () => {
  simulator = await startSimulator({ chunkDelayMs: 0 });
  simulator.events.on('stream-end', (end) => streamEnds.push(end));
  simulator.events.on('request', (request) => simRequests.push(request));
  proxy = await startLlmProxy(simulator.url);
  t = await createTestApp({ runtime: { simulatorUrl: proxy.url } });
});
afterAll(async () => {
  await t.close();
  await proxy.close();
  await simulator.close();
});

/** Resolves when the simulator has finished serving `count` streams of `agent` for the run. */
function streamEndsOf(runId: string, agent: AgentType, count: number) {
  const ends = () => streamEnds.filter((e) => e.runKey === runId && e.agent === agent);
  return new Promise<StreamOutcome[]>((resolve, reject) => {
    const check = () => {
      if (ends().length < count) return;
      simulator.events.off('stream-end', check);
      clearTimeout(timer);
      resolve(ends().map((e) => e.outcome));
    };
    const timer = setTimeout(() => {
      simulator.events.off('stream-end', check);
      reject(new Error(`gave up waiting for ${count} ${agent} stream(s)`));
    }, WAIT_LIMIT_MS);
    simulator.events.on('stream-end', check);
    check();
  });
}

/**
 * The nth call of `agent` in a run streams slowly (others at full speed), so it is in flight
 * when we cancel. Tests here run one pipeline at a time, so any run's calls may be counted.
 */
function slowDown(agent: AgentType, nth: number) {
  proxy.addScenario((seen) => {
    if (seen.agent !== agent) return undefined;
    const count = proxy.requests.filter((r) => r.runId === seen.runId && r.agent === agent).length;
    return count === nth ? 'slow=40' : undefined;
  });
}

/** Waits until the simulator began answering the nth call of `agent`: from then on it sees a disconnect. */
function inFlight(runId: string, agent: AgentType, nth: number) {
  const count = () => simRequests.filter((r) => r.runKey === runId && r.agent === agent).length;
  return new Promise<void>((resolve, reject) => {
    const check = () => {
      if (count() < nth) return;
      simulator.events.off('request', check);
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      simulator.events.off('request', check);
      reject(new Error(`no ${agent} call #${nth}`));
    }, WAIT_LIMIT_MS);
    simulator.events.on('request', check);
    check();
  });
}

async function expectCancelledCleanly(setup: TaskSetup, runId: string) {
  const { client, taskId, projectId } = setup;
  await t.deps.orchestrator.idle();
  const run = await statusOf(client, taskId);
  expect(run).toMatchObject({ runId, status: 'cancelled', phase: 'cancelled' });
  expect(run.completedAt).not.toBeNull();
  expect(await taskStatusOf(client, taskId)).toBe('backlog');

  const events = await taskEvents(t, taskId);
  expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
  const at = events.findIndex(isPhase('cancelled'));
  expect(at).toBeGreaterThan(0);
  // After the cancellation only the task's move to Backlog: the stream in flight was cut.
  expect(events.slice(at + 1).map((e) => e.type)).toEqual(['task-status']);
  expect(events.at(-1)).toMatchObject({ type: 'task-status', data: { newStatus: 'backlog' } });
  expect(events.some((e) => e.type === 'pipeline-complete')).toBe(false);

  // The run is never written back to running after it was cancelled.
  const updates = (await projectEvents(t, projectId)).flatMap((e) =>
    e.type === 'run-update' && e.data.run.id === runId ? [e.data.run.status] : [],
  );
  const first = updates.indexOf('cancelled');
  expect(first).toBeGreaterThanOrEqual(0);
  expect(updates.slice(first).every((s) => s === 'cancelled')).toBe(true);

  // Its worktree is given back; its branch and commits stay.
  const row = await runRow(t, runId);
  const worktree = row.worktreePath ?? path.join(t.deps.dataDir, 'worktrees', runId);
  expect(existsSync(worktree)).toBe(false);
  const { repoPath } = await repoOf(t, projectId);
  expect(await worktreePaths(repoPath)).toHaveLength(1);
  if (row.headCommit) {
    expect((await gitIn(repoPath, ['rev-parse', `refs/heads/${row.branch}`])).trim()).toBe(row.headCommit);
  }
  return run;
}

describe.each([
  { phase: 'planning', agent: 'planner', nth: 1, scenario: '' },
  { phase: 'coding', agent: 'coder', nth: 2, scenario: '' },
  { phase: 'reviewing', agent: 'reviewer', nth: 1, scenario: '' },
  // The feature plan has three subtasks: the fourth coder call is the fix.
  { phase: 'fixing', agent: 'coder', nth: 4, scenario: 'review-fails=1' },
] as const)('cancel while $phase', ({ phase, agent, nth, scenario }) => {
  it(
    'aborts the agent call in flight, ends cancelled with the task in Backlog',
    async () => {
      const setup = await newTask(t, { coderEngine: 'one-shot', title: `Cancel during ${phase}` });
      let runId: string | undefined;
      slowDown(agent, nth);
      try {
        runId = await startOk(setup.client, setup.taskId, scenario ? { scenario } : {});
        await waitForEvent(t, setup.taskId, isPhase(phase), `phase ${phase}`);
        await inFlight(runId, agent, nth);
        const res = await post(setup.client, `/api/pipeline/${setup.taskId}/cancel`);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ status: 'cancelled' });
      } finally {
        proxy.addScenario(undefined);
      }
      if (!runId) throw new Error('not started');
      const run = await expectCancelledCleanly(setup, runId);
      const outcomes = await streamEndsOf(runId, agent, nth);
      expect(outcomes.at(-1)).toBe('client-closed');
      expect(outcomes.slice(0, -1).every((o) => o === 'completed')).toBe(true);
      // The aborted call is not counted as one.
      expect(run.calls.filter((c) => c.agent === agent)).toHaveLength(nth - 1);
      if (phase === 'coding') expect(run.headCommit).not.toBeNull();

      // The task can be started again, on a fresh branch.
      const again = await startOk(setup.client, setup.taskId);
      await t.deps.orchestrator.idle();
      const next = await statusOf(setup.client, setup.taskId);
      expect(next).toMatchObject({ runId: again, status: 'passed' });
      expect(next.branch).not.toBe(run.branch);
    },
    LONG_TEST_MS,
  );
});

describe('cancel during a second attempt', () => {
  it(
    'keeps the tokens of the attempt whose answer did not parse',
    async () => {
      const setup = await newTask(t, { coderEngine: 'one-shot', title: 'Cancel during the reminder' });
      let runId: string | undefined;
      // The planner's first answer does not parse; the second (the reminder) streams slowly.
      slowDown('planner', 2);
      try {
        runId = await startOk(setup.client, setup.taskId, { scenario: 'malformed@planner' });
        await inFlight(runId, 'planner', 2);
        expect((await post(setup.client, `/api/pipeline/${setup.taskId}/cancel`)).status).toBe(200);
      } finally {
        proxy.addScenario(undefined);
      }
      await expectCancelledCleanly(setup, runId);
      expect(await streamEndsOf(runId, 'planner', 2)).toEqual(['completed', 'client-closed']);
      // No call was recorded, but the first attempt was billed: the run counts its tokens.
      const row = await runRow(t, runId);
      expect(row.calls).toEqual([]);
      expect(row.inputTokens).toBeGreaterThan(0);
      expect(row.outputTokens).toBeGreaterThan(0);
    },
    LONG_TEST_MS,
  );
});

describe('cancel while paused', () => {
  it(
    'ends the paused run as cancelled and gives back its worktree',
    async () => {
      const setup = await newTask(t, { coderEngine: 'one-shot', title: 'Cancel while paused' });
      const runId = await startOk(setup.client, setup.taskId, { scenario: 'error=500@coder' });
      await t.deps.orchestrator.idle();
      expect((await statusOf(setup.client, setup.taskId)).status).toBe('paused');
      const res = await post(setup.client, `/api/pipeline/${setup.taskId}/cancel`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'cancelled' });
      await expectCancelledCleanly(setup, runId);
      const retry = await post(setup.client, `/api/pipeline/${setup.taskId}/retry`);
      expect(retry.status).toBe(400);
    },
    LONG_TEST_MS,
  );
});

describe('cancel right after start', () => {
  it(
    'leaves no worktree behind, whatever step the run had reached',
    async () => {
      const setup = await newTask(t, { coderEngine: 'one-shot', title: 'Cancel at once' });
      const runId = await startOk(setup.client, setup.taskId);
      const res = await post(setup.client, `/api/pipeline/${setup.taskId}/cancel`);
      expect(res.status).toBe(200);
      await expectCancelledCleanly(setup, runId);
    },
    LONG_TEST_MS,
  );
});

describe('cancel with nothing to cancel', () => {
  it(
    'is refused with 400 for a task that never ran, and for a finished run',
    async () => {
      const setup = await newTask(t, { coderEngine: 'one-shot', title: 'Nothing running' });
      const res = await post(setup.client, `/api/pipeline/${setup.taskId}/cancel`);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('INVALID_PIPELINE_STATE');

      await startOk(setup.client, setup.taskId);
      await t.deps.orchestrator.idle();
      const after = await post(setup.client, `/api/pipeline/${setup.taskId}/cancel`);
      expect(after.status).toBe(400);
      expect(await taskStatusOf(setup.client, setup.taskId)).toBe('review');
    },
    LONG_TEST_MS,
  );
});

describe('deleting the task of a running pipeline', () => {
  it(
    'is refused until the pipeline is cancelled; then the task, its runs and its worktree go',
    async () => {
      const setup = await newTask(t, { coderEngine: 'one-shot', title: 'Deleted mid-run' });
      const runId = await startOk(setup.client, setup.taskId);
      await waitForEvent(t, setup.taskId, isPhase('coding'), 'coding');
      const { repoPath } = await repoOf(t, setup.projectId);
      const refused = await setup.client.delete(`/api/tasks/${setup.taskId}`);
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ error: 'PIPELINE_ACTIVE' });
      const project = await setup.client.delete(`/api/projects/${setup.projectId}`);
      expect([400, 409]).toContain(project.status);
      expect((await setup.client.post(`/api/pipeline/${setup.taskId}/cancel`)).status).toBe(200);
      expect((await setup.client.delete(`/api/tasks/${setup.taskId}`)).status).toBe(204);
      await t.deps.orchestrator.idle();
      expect(existsSync(path.join(t.deps.dataDir, 'worktrees', runId))).toBe(false);
      expect(await worktreePaths(repoPath)).toHaveLength(1);
    },
    LONG_TEST_MS,
  );
});
