import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../../contracts/pipeline.js';
import { createLogger } from '../../lib/logger.js';
import type { TestApp } from '../../testing/test-app.js';
import { Orchestrator } from './orchestrator.js';
import type { LlmProxy } from './testing/llm-proxy.js';
import {
  createProxiedTestApp,
  gitIn,
  LONG_TEST_MS,
  newTask,
  type ProxiedTestApp,
  phaseSequence,
  repoOf,
  runRow,
  runToEnd,
  startOk,
  statusOf,
  taskEvents,
  taskStatusOf,
  taskStatusSequence,
  worktreePaths,
} from './testing/run-kit.js';

let app: ProxiedTestApp;
let t: TestApp;
let proxy: LlmProxy;

beforeAll(async () => {
  app = await createProxiedTestApp();
  ({ t, proxy } = app);
});
afterAll(() => app.close());

/** What a restarted server builds over the same database: a fresh orchestrator that knows no run. */
function restartedOrchestrator() {
  return new Orchestrator({
    db: t.deps.db,
    events: t.deps.events,
    logger: createLogger('silent'),
    now: t.deps.now,
    dataDir: t.deps.dataDir,
    providerDefaults: {},
    providers: () => {
      throw new Error('a recovering orchestrator starts no call');
    },
  });
}

describe('a run interrupted by a crash', () => {
  it(
    'is marked failed at the next start-up, naming its branch; the task goes back to Backlog',
    async () => {
      const { client, taskId, projectId } = await newTask(t, { title: 'Survive a crash' });
      // A paused run must survive the restart as it is.
      const other = await newTask(t, { title: 'Paused before the crash' });
      await runToEnd(t, other.client, other.taskId, { scenario: 'error=500@reviewer' });
      expect((await statusOf(other.client, other.taskId)).status).toBe('paused');

      // The second coder call never answers: the process is frozen there, mid-run, after one commit.
      let runId: string;
      proxy.holdWhen(
        (seen) =>
          seen.agent === 'coder' &&
          proxy.requests.filter((r) => r.runId === seen.runId && r.agent === 'coder').length === 2,
      );
      try {
        runId = await startOk(client, taskId);
        expect((await proxy.nextHeld()).runId).toBe(runId);
        const before = await statusOf(client, taskId);
        expect(before).toMatchObject({ status: 'running', phase: 'coding' });
        expect(await taskStatusOf(client, taskId)).toBe('building');

        expect(await restartedOrchestrator().recoverInterrupted()).toBe(1);
      } finally {
        proxy.respondWith(undefined);
        // The frozen process finally dies; whatever it does next must not revive the run.
        proxy.dropHeld();
      }
      await t.deps.orchestrator.idle();

      const run = await statusOf(client, taskId);
      expect(run).toMatchObject({ runId, status: 'failed', phase: 'failed' });
      expect(run.completedAt).not.toBeNull();
      expect(run.errorDetails).toMatchObject({ type: 'unknown', retryable: false });
      expect(run.errorDetails?.message).toMatch(/stopped while this run was in progress/);
      expect(run.errorDetails?.message).toContain(run.branch!);
      expect(await taskStatusOf(client, taskId)).toBe('backlog');
      expect((await statusOf(other.client, other.taskId)).status).toBe('paused');

      // The commit made before the crash is still on the branch.
      const { repoPath } = await repoOf(t, projectId);
      expect(run.headCommit).not.toBeNull();
      expect((await gitIn(repoPath, ['rev-parse', `refs/heads/${run.branch}`])).trim()).toBe(run.headCommit);
      expect(
        (await gitIn(repoPath, ['rev-list', '--count', `${run.baseCommit}..${run.branch}`])).trim(),
      ).toBe('1');
      // Its worktree is given back, as for any failed run.
      const row = await runRow(t, runId);
      expect(existsSync(row.worktreePath!)).toBe(false);
      expect((await worktreePaths(repoPath)).some((p) => p.endsWith(runId))).toBe(false);

      // The events, old and new, are still there to replay, numbered without a gap.
      const events = await taskEvents(t, taskId);
      expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
      expect(phaseSequence(events)).toEqual(['planning', 'coding', 'failed']);
      expect(taskStatusSequence(events)).toEqual(['spec', 'building', 'backlog']);
      expect(events.at(-1)).toMatchObject({ type: 'pipeline-complete', data: { result: 'failed', runId } });
      const complete = events.at(-1) as Extract<StoredEvent, { type: 'pipeline-complete' }>;
      expect(complete.data.fileChanges?.files.map((f) => f.filePath)).toEqual(
        run.fileChanges.files.map((f) => f.filePath),
      );
      expect(events.filter((e) => e.type === 'error')).toHaveLength(1);
      const byRun = await client.get<{ events: StoredEvent[] }>(`/api/pipeline/runs/${runId}/events`);
      expect(byRun.body.events.map((e) => e.id)).toEqual(events.map((e) => e.id));

      // The task starts afresh on a new branch.
      const again = await runToEnd(t, client, taskId);
      expect(again.status).toBe('passed');
      expect(again.branch).not.toBe(run.branch);
    },
    LONG_TEST_MS,
  );

  it('finds nothing to recover when no run was left running', async () => {
    expect(await restartedOrchestrator().recoverInterrupted()).toBe(0);
  });
});
