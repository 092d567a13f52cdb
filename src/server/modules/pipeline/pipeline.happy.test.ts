import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '@/contracts/pipeline.js';
import { createTestApp, type TestApp } from '@/server/testing/test-app.js';
import {
  callsBy,
  commitSubjects,
  gitHas,
  gitIn,
  LONG_TEST_MS,
  newTask,
  phaseSequence,
  post,
  projectEvents,
  type RunStatusBody,
  repoOf,
  runRow,
  runToEnd,
  startRun,
  statusOf,
  type TaskSetup,
  taskEvents,
  taskStatusOf,
  taskStatusSequence,
  worktreePaths,
} from './testing/run-kit.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

describe('a run that passes', () => {
  let setup: TaskSetup;
  let runId: string;
  let run: RunStatusBody;
  let events: StoredEvent[];
  let repo: { repoPath: string; defaultBranch: string };
  let mainBefore: string;

  beforeAll(async () => {
    setup = await newTask(t, { title: 'Add greeting helper' });
    repo = await repoOf(t, setup.projectId);
    mainBefore = (await gitIn(repo.repoPath, ['rev-parse', `refs/heads/${repo.defaultBranch}`])).trim();
    const res = await startRun(setup.client, setup.taskId);
    expect(res.status).toBe(202);
    expect(Object.keys(res.body)).toEqual(['runId']);
    runId = res.body.runId;
    await t.deps.orchestrator.idle();
    run = await statusOf(setup.client, setup.taskId);
    events = await taskEvents(t, setup.taskId);
  }, LONG_TEST_MS);

  it('ends passed and completed, with the task in Review', async () => {
    expect(run).toMatchObject({ runId, status: 'passed', phase: 'completed', iteration: 0, simulated: true });
    expect(run.completedAt).not.toBeNull();
    expect(run.errorDetails).toBeNull();
    expect(run.reviewScore).toBeGreaterThanOrEqual(70);
    expect(await taskStatusOf(setup.client, setup.taskId)).toBe('review');
  });

  it('works on its own branch with one commit per subtask, leaving the default branch alone', async () => {
    expect(run.branch).toMatch(/^autocoder\/add-greeting-helper-[0-9a-f]{8}$/);
    expect(run.branch?.endsWith(runId.slice(0, 8))).toBe(true);
    const branchHead = (await gitIn(repo.repoPath, ['rev-parse', `refs/heads/${run.branch}`])).trim();
    expect(run.headCommit).toBe(branchHead);
    expect(run.baseCommit).toBe(mainBefore);
    expect((await gitIn(repo.repoPath, ['rev-parse', `refs/heads/${repo.defaultBranch}`])).trim()).toBe(
      mainBefore,
    );
    expect(run.subtasks.length).toBeGreaterThan(0);
    const count = Number(
      (await gitIn(repo.repoPath, ['rev-list', '--count', `${run.baseCommit}..${run.branch}`])).trim(),
    );
    expect(count).toBe(run.subtasks.length);
    const subjects = await commitSubjects(repo.repoPath, `${run.baseCommit}..${run.branch}`);
    expect(subjects.reverse()).toEqual(run.subtasks.map((s) => s.title));
  });

  it('puts the coder’s files on the branch and not on the default branch', async () => {
    expect(run.fileChanges.files.length).toBeGreaterThan(0);
    for (const file of run.fileChanges.files) {
      expect(file.action).not.toBe('delete');
      const onBranch = await gitIn(repo.repoPath, ['show', `${run.branch}:${file.filePath}`]);
      expect(onBranch).toBe(file.content);
      expect(await gitHas(repo.repoPath, `${repo.defaultBranch}:${file.filePath}`)).toBe(false);
      expect(existsSync(path.join(repo.repoPath, file.filePath))).toBe(false);
    }
  });

  it('records token usage and one call per agent call', async () => {
    expect(run.usage.inputTokens).toBeGreaterThan(0);
    expect(run.usage.outputTokens).toBeGreaterThan(0);
    expect(run.usage.costUsd).toBe(0);
    expect(callsBy(run, 'planner')).toBe(1);
    expect(callsBy(run, 'coder')).toBe(run.subtasks.length);
    expect(callsBy(run, 'reviewer')).toBe(1);
    const summed = run.calls.reduce((sum, call) => sum + call.inputTokens, 0);
    expect(summed).toBe(run.usage.inputTokens);
    expect(run.agentLogCounts).toEqual({ planner: 1, coder: run.subtasks.length, reviewer: 1 });
    const usageEvents = events.filter((e) => e.type === 'usage');
    expect(usageEvents).toHaveLength(run.calls.length);
    const last = usageEvents.at(-1);
    expect(last?.type === 'usage' && last.data.total.inputTokens).toBe(run.usage.inputTokens);
  });

  it('tells the task’s stream every run summary it tells the board, in the same order', async () => {
    const summaries = (list: StoredEvent[]) =>
      list.flatMap((e) => (e.type === 'run-update' ? [e.data.run] : []));
    const own = summaries(events);
    expect(own).toEqual(summaries(await projectEvents(t, setup.projectId)));
    expect(own.length).toBeGreaterThan(3);
    expect(own.at(-1)).toMatchObject({ id: runId, status: 'passed', phase: 'completed' });
  });

  it('numbers the task’s events 1..n without a gap, each with a numeric timestamp', () => {
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    for (const e of events) expect(typeof (e.data as { timestamp?: unknown }).timestamp).toBe('number');
    expect(events.at(-1)?.type).toBe('pipeline-complete');
    for (const e of events) {
      if ('runId' in e.data) expect(e.data.runId).toBe(runId);
    }
  });

  it('announces task moves spec → building → review and phases planning → coding → reviewing → completed', () => {
    expect(taskStatusSequence(events)).toEqual(['spec', 'building', 'review']);
    expect(phaseSequence(events)).toEqual(['planning', 'coding', 'reviewing', 'completed']);
    const subtaskAnnouncements = events.flatMap((e) =>
      e.type === 'phase-change' && e.data.subtask ? [e.data.subtask] : [],
    );
    expect(subtaskAnnouncements.map((s) => s.index)).toEqual(run.subtasks.map((_, i) => i + 1));
    expect(subtaskAnnouncements.every((s) => s.total === run.subtasks.length)).toBe(true);
    const complete = events.at(-1);
    expect(complete?.type === 'pipeline-complete' && complete.data).toMatchObject({
      runId,
      taskId: setup.taskId,
      result: 'passed',
    });
  });

  it('streams every agent’s output as agent-log events', () => {
    const agents = new Set(events.flatMap((e) => (e.type === 'agent-log' ? [e.data.agent] : [])));
    expect([...agents].sort()).toEqual(['coder', 'planner', 'reviewer']);
  });

  it('serves the run’s events by run id, and after a given id', async () => {
    const all = await setup.client.get<{ runId: string; events: StoredEvent[] }>(
      `/api/pipeline/runs/${runId}/events`,
    );
    expect(all.status).toBe(200);
    expect(all.body.events.map((e) => e.id)).toEqual(events.map((e) => e.id));
    const after = await setup.client.get<{ events: StoredEvent[] }>(
      `/api/pipeline/runs/${runId}/events?after=5`,
    );
    expect(after.body.events.map((e) => e.id)).toEqual(events.filter((e) => e.id > 5).map((e) => e.id));
    const bad = await setup.client.get(`/api/pipeline/runs/${runId}/events?after=-1`);
    expect(bad.status).toBe(400);
  });

  it('lists the run in the task’s history', async () => {
    const res = await setup.client.get<{ runs: { id: string; status: string }[] }>(
      `/api/pipeline/${setup.taskId}/runs`,
    );
    expect(res.body.runs).toEqual([expect.objectContaining({ id: runId, status: 'passed' })]);
  });

  describe('approve', () => {
    it('merges the branch into the default branch, moves the task to Done, removes the worktree and keeps the branch', async () => {
      const worktreePath = (await runRow(t, runId)).worktreePath;
      expect(worktreePath).toBeTruthy();
      expect(existsSync(worktreePath!)).toBe(true);

      const res = await post<{ status: string; mergeCommit: string; branch: string }>(
        setup.client,
        `/api/pipeline/${setup.taskId}/approve`,
      );
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'done', branch: run.branch });
      expect(await taskStatusOf(setup.client, setup.taskId)).toBe('done');

      const main = (await gitIn(repo.repoPath, ['rev-parse', `refs/heads/${repo.defaultBranch}`])).trim();
      expect(main).toBe(res.body.mergeCommit);
      await gitIn(repo.repoPath, ['merge-base', '--is-ancestor', run.headCommit!, main]);
      // The main checkout's working tree has the merged files.
      for (const file of run.fileChanges.files) {
        expect(await readFile(path.join(repo.repoPath, file.filePath), 'utf8')).toBe(file.content);
      }
      expect((await gitIn(repo.repoPath, ['status', '--porcelain'])).trim()).toBe('');

      expect(existsSync(worktreePath!)).toBe(false);
      expect(await worktreePaths(repo.repoPath)).toHaveLength(1);
      expect((await gitIn(repo.repoPath, ['rev-parse', `refs/heads/${run.branch}`])).trim()).toBe(
        run.headCommit,
      );
      const events = await taskEvents(t, setup.taskId);
      expect(events.at(-1)).toMatchObject({ type: 'task-status', data: { newStatus: 'done' } });
    });

    it('is refused once the task is no longer in Review', async () => {
      const res = await post(setup.client, `/api/pipeline/${setup.taskId}/approve`);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('INVALID_PIPELINE_STATE');
    });
  });
});

describe('approve with a conflicting default branch', () => {
  it(
    'answers 409 MERGE_CONFLICT naming the file and changes nothing: default branch, branch, worktree; the task stays in Review',
    async () => {
      const { client, taskId, projectId } = await newTask(t, { title: 'Conflicting helper' });
      const run = await runToEnd(t, client, taskId);
      expect(run.status).toBe('passed');
      const { repoPath, defaultBranch } = await repoOf(t, projectId);
      // Someone commits a different version of the same file on the default branch meanwhile.
      const file = run.fileChanges.files[0]!;
      await mkdir(path.dirname(path.join(repoPath, file.filePath)), { recursive: true });
      await writeFile(path.join(repoPath, file.filePath), 'export const mine = "not yours";\n');
      await gitIn(repoPath, ['add', '-A']);
      await gitIn(repoPath, ['commit', '-q', '-m', 'A change made by hand']);
      const mainBefore = (await gitIn(repoPath, ['rev-parse', `refs/heads/${defaultBranch}`])).trim();

      const res = await post<{ files: string[] }>(client, `/api/pipeline/${taskId}/approve`);
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        error: 'MERGE_CONFLICT',
        message: expect.stringContaining(file.filePath),
        files: [file.filePath],
      });
      expect((await gitIn(repoPath, ['rev-parse', `refs/heads/${run.branch}`])).trim()).toBe(run.headCommit);
      expect((await runRow(t, run.runId)).mergeCommit).toBeNull();
      expect((await gitIn(repoPath, ['rev-parse', `refs/heads/${defaultBranch}`])).trim()).toBe(mainBefore);
      expect((await gitIn(repoPath, ['status', '--porcelain'])).trim()).toBe('');
      expect(await taskStatusOf(client, taskId)).toBe('review');
      expect(await statusOf(client, taskId)).toMatchObject({ status: 'passed' });
      const worktree = (await runRow(t, run.runId)).worktreePath!;
      expect(existsSync(worktree)).toBe(true);
      expect((await gitIn(worktree, ['rev-parse', 'HEAD'])).trim()).toBe(run.headCommit);
      expect((await gitIn(worktree, ['status', '--porcelain'])).trim()).toBe('');
    },
    LONG_TEST_MS,
  );
});

describe('approve before review', () => {
  it('is refused for a task whose run has not passed', async () => {
    const { client, taskId } = await newTask(t, { title: 'Never started' });
    const res = await post(client, `/api/pipeline/${taskId}/approve`);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('INVALID_PIPELINE_STATE');
  });
});

describe('categories', () => {
  it(
    'runs a bug task (two subtasks) to a pass with one commit each',
    async () => {
      const { client, taskId, projectId } = await newTask(t, {
        title: 'Trim names before greeting',
        category: 'bug',
      });
      const run = await runToEnd(t, client, taskId);
      expect(run.status).toBe('passed');
      const { repoPath } = await repoOf(t, projectId);
      const count = Number(
        (await gitIn(repoPath, ['rev-list', '--count', `${run.baseCommit}..${run.branch}`])).trim(),
      );
      expect(count).toBe(run.subtasks.length);
    },
    LONG_TEST_MS,
  );
});
