import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '@/contracts/pipeline.js';
import { createLogger } from '@/server/lib/logger.js';
import type { TestApp } from '@/server/testing/test-app.js';
import { Orchestrator } from './orchestrator.js';
import type { LlmProxy } from './testing/llm-proxy.js';
import {
  commitSubjects,
  createProxiedTestApp,
  gitIn,
  LONG_TEST_MS,
  newTask,
  type ProxiedTestApp,
  phaseSequence,
  post,
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
    sandbox: t.sandbox,
    providers: () => {
      throw new Error('a recovering orchestrator starts no call');
    },
  });
}

describe('a run interrupted by a crash', () => {
  it(
    'is paused as interrupted at the next start-up; Retry resumes it on its branch, committing each subtask once',
    async () => {
      const { client, taskId, projectId } = await newTask(t, {
        coderEngine: 'one-shot',
        title: 'Survive a crash',
      });
      // A paused run must survive the restart as it is.
      const other = await newTask(t, { coderEngine: 'one-shot', title: 'Paused before the crash' });
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
      expect(run).toMatchObject({ runId, status: 'paused', phase: 'paused' });
      expect(run.completedAt).toBeNull();
      expect(run.errorDetails).toMatchObject({ type: 'interrupted', retryable: true, failedAgent: 'coder' });
      expect(run.errorDetails?.message).toMatch(/stopped while this run was in progress/);
      expect(run.errorDetails?.message).toContain(run.branch!);
      expect(await taskStatusOf(client, taskId)).toBe('building');
      expect((await statusOf(other.client, other.taskId)).status).toBe('paused');

      // The commit made before the crash is still on the branch, and the worktree is kept for the retry.
      const { repoPath } = await repoOf(t, projectId);
      expect(run.headCommit).not.toBeNull();
      expect((await gitIn(repoPath, ['rev-parse', `refs/heads/${run.branch}`])).trim()).toBe(run.headCommit);
      const row = await runRow(t, runId);
      expect(existsSync(row.worktreePath!)).toBe(true);
      expect((await worktreePaths(repoPath)).some((p) => p.endsWith(runId))).toBe(true);

      // The events, old and new, are still there to replay, numbered without a gap.
      const events = await taskEvents(t, taskId);
      expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
      expect(phaseSequence(events)).toEqual(['planning', 'coding', 'paused']);
      expect(taskStatusSequence(events)).toEqual(['spec', 'building']);
      expect(events.filter((e) => e.type === 'error')).toHaveLength(1);
      const byRun = await client.get<{ events: StoredEvent[] }>(`/api/pipeline/runs/${runId}/events`);
      expect(byRun.body.events.map((e) => e.id)).toEqual(events.map((e) => e.id));

      // What the dying process left half done: a commit it never recorded, and changes never committed.
      const worktree = row.worktreePath!;
      await writeFile(path.join(worktree, 'half-done.txt'), 'never recorded\n');
      await gitIn(worktree, ['add', '.']);
      await gitIn(worktree, ['commit', '-q', '-m', 'Unrecorded commit']);
      await writeFile(path.join(worktree, 'stray.txt'), 'uncommitted\n');

      // Retry resumes at the second subtask, on the same branch, from the recorded head.
      expect((await post(client, `/api/pipeline/${taskId}/retry`)).status).toBe(202);
      await t.deps.orchestrator.idle();
      const resumed = await statusOf(client, taskId);
      expect(resumed).toMatchObject({ runId, status: 'passed', branch: run.branch });
      const subjects = await commitSubjects(repoPath, `${run.baseCommit}..${run.branch}`);
      expect(subjects).toEqual(resumed.subtasks!.map((s) => s.title).reverse());
      expect(subjects).not.toContain('Unrecorded commit');
      expect(existsSync(path.join(worktree, 'stray.txt'))).toBe(false);
      expect(existsSync(path.join(worktree, 'half-done.txt'))).toBe(false);
      const coderCalls = proxy.requests.filter((r) => r.runId === runId && r.agent === 'coder');
      // Subtask 1 once, subtask 2 twice (the call the crash cut, then the retry), then the rest once.
      expect(coderCalls.length).toBe(resumed.subtasks!.length + 1);
    },
    LONG_TEST_MS,
  );

  it('finds nothing to recover when no run was left running', async () => {
    expect(await restartedOrchestrator().recoverInterrupted()).toBe(0);
  });
});
