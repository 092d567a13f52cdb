import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestApp } from '@/server/testing/test-app.js';
import {
  callsBy,
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

const tip = async (repoPath: string, branch: string) =>
  (await gitIn(repoPath, ['rev-parse', `refs/heads/${branch}`])).trim();
const contains = (repoPath: string, commit: string, branch: string) =>
  gitIn(repoPath, ['merge-base', '--is-ancestor', commit, `refs/heads/${branch}`]).then(
    () => true,
    () => false,
  );

/** Someone commits their own version of `file` on the default branch's checkout. */
async function commitByHand(repoPath: string, file: string, content: string) {
  await mkdir(path.dirname(path.join(repoPath, file)), { recursive: true });
  await writeFile(path.join(repoPath, file), content);
  await gitIn(repoPath, ['add', '-A']);
  await gitIn(repoPath, ['commit', '-q', '-m', `By hand: ${file}`]);
}

describe('approve', () => {
  it(
    'fast-forwards when the default branch has not moved: main is the branch head, no merge commit',
    async () => {
      const { client, taskId, projectId } = await newTask(t, {
        coderEngine: 'one-shot',
        title: 'Fast forward helper',
      });
      const run = await runToEnd(t, client, taskId);
      const { repoPath, defaultBranch } = await repoOf(t, projectId);
      const before = await tip(repoPath, defaultBranch);
      const res = await post<{ mergeCommit: string; fastForward: boolean }>(
        client,
        `/api/pipeline/${taskId}/approve`,
      );
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ mergeCommit: run.headCommit, fastForward: true });
      expect(await tip(repoPath, defaultBranch)).toBe(run.headCommit);
      expect((await runRow(t, run.runId)).mergedOnto).toBe(before);
    },
    LONG_TEST_MS,
  );
});

describe('a conflicting approval, then request changes', () => {
  it(
    'merges the default branch into the branch, the coder resolves the markers, the review runs again, and approve lands it',
    async () => {
      const { client, taskId, projectId } = await newTask(t, {
        coderEngine: 'one-shot',
        title: 'Conflict helper',
      });
      const first = await runToEnd(t, client, taskId);
      const { repoPath, defaultBranch } = await repoOf(t, projectId);
      const file = first.fileChanges.files[0]!.filePath;
      await commitByHand(repoPath, file, 'export const mine = "from main";\n');
      const mainHead = await tip(repoPath, defaultBranch);

      const refused = await post<{ files: string[] }>(client, `/api/pipeline/${taskId}/approve`);
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ error: 'MERGE_CONFLICT', files: [file] });
      expect(refused.body.message).toContain(file);

      const coderCalls = app.requestsOf(first.runId, 'coder').length;
      const seen = (await taskEvents(t, taskId)).length;
      const res = await post<{ conflicts: string[] }>(client, `/api/pipeline/${taskId}/request-changes`, {});
      expect(res.status).toBe(202);
      expect(res.body.conflicts).toEqual([file]);
      await t.deps.orchestrator.idle();

      const run = await statusOf(client, taskId);
      expect(run).toMatchObject({ status: 'passed', iteration: first.iteration + 1 });
      expect(await taskStatusOf(client, taskId)).toBe('review');
      expect(callsBy(run, 'coder')).toBe(callsBy(first, 'coder') + 1);
      expect(callsBy(run, 'reviewer')).toBe(callsBy(first, 'reviewer') + 1);
      // The coder saw the file with git's markers, both sides in it.
      const prompt = app.requestsOf(first.runId, 'coder').slice(coderCalls)[0]?.prompt ?? '';
      expect(prompt).toContain('## Merge conflicts to resolve');
      expect(prompt).toContain('<<<<<<<');
      expect(prompt).toContain('from main');

      // The branch head is a merge commit of the old head and main, with no markers left.
      const parents = (await gitIn(repoPath, ['rev-list', '--parents', '-n1', run.headCommit!])).trim();
      expect(parents.split(' ').slice(1).sort()).toEqual([first.headCommit, mainHead].sort());
      const resolved = await gitIn(repoPath, ['show', `${run.headCommit}:${file}`]);
      expect(resolved).not.toMatch(/^(<{7}|={7}|>{7})/m);
      expect(resolved).toContain('from main');
      // The run's base is now the merged main: its diff is the task's own changes.
      expect(run.baseCommit).toBe(mainHead);
      expect(phaseSequence((await taskEvents(t, taskId)).slice(seen))).toEqual([
        'coding',
        'reviewing',
        'completed',
      ]);

      const approved = await post<{ mergeCommit: string }>(client, `/api/pipeline/${taskId}/approve`);
      expect(approved.status).toBe(200);
      expect(await contains(repoPath, run.headCommit!, defaultBranch)).toBe(true);
      expect(await readFile(path.join(repoPath, file), 'utf8')).toBe(resolved);
      expect(await taskStatusOf(client, taskId)).toBe('done');
    },
    LONG_TEST_MS,
  );

  it(
    'pauses when the coder’s answer cannot be used, leaving the branch where it was; Retry merges again and resolves',
    async () => {
      const { client, taskId, projectId } = await newTask(t, {
        coderEngine: 'one-shot',
        title: 'Stubborn conflict',
      });
      const first = await runToEnd(t, client, taskId);
      const { repoPath } = await repoOf(t, projectId);
      const file = first.fileChanges.files[0]!.filePath;
      await commitByHand(repoPath, file, 'export const other = 1;\n');
      const res = await post(client, `/api/pipeline/${taskId}/request-changes`, {
        feedback: 'Keep both.',
        scenario: 'malformed@coder x2',
      });
      expect(res.status).toBe(202);
      await t.deps.orchestrator.idle();
      const paused = await statusOf(client, taskId);
      expect(paused.status).toBe('paused');
      expect(await tip(repoPath, paused.branch!)).toBe(first.headCommit);

      expect((await post(client, `/api/pipeline/${taskId}/retry`, { provider: 'simulator' })).status).toBe(
        202,
      );
      await t.deps.orchestrator.idle();
      const run = await statusOf(client, taskId);
      expect(run.status).toBe('passed');
      const parents = (await gitIn(repoPath, ['rev-list', '--parents', '-n1', run.headCommit!])).trim();
      expect(parents.split(' ')).toHaveLength(3);
      expect(await gitIn(repoPath, ['show', `${run.headCommit}:${file}`])).toContain(
        'export const other = 1;',
      );
    },
    LONG_TEST_MS,
  );
});

describe('revert', () => {
  it(
    'takes back a fast-forwarded approval of several commits with one revert commit; the task goes back to Review',
    async () => {
      const { client, taskId, projectId } = await newTask(t, {
        coderEngine: 'one-shot',
        title: 'Revertable helper',
      });
      const run = await runToEnd(t, client, taskId);
      expect(run.subtasks.length).toBeGreaterThan(1);
      const { repoPath, defaultBranch } = await repoOf(t, projectId);
      const before = await tip(repoPath, defaultBranch);
      const refreshes = vi.spyOn(t.deps.graphs, 'refresh');
      expect((await post(client, `/api/pipeline/${taskId}/approve`)).status).toBe(200);

      const res = await post<{ revertCommit: string; status: string }>(
        client,
        `/api/pipeline/${taskId}/revert`,
      );
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('review');
      const head = await tip(repoPath, defaultBranch);
      expect(head).toBe(res.body.revertCommit);
      expect((await gitIn(repoPath, ['rev-parse', `${head}^`])).trim()).toBe(run.headCommit);
      expect(await gitIn(repoPath, ['diff', before, head])).toBe('');
      for (const change of run.fileChanges.files)
        expect(existsSync(path.join(repoPath, change.filePath))).toBe(false);
      expect(await taskStatusOf(client, taskId)).toBe('review');
      expect(await statusOf(client, taskId)).toMatchObject({ status: 'passed', revertCommit: head });
      // The branch keeps its commits.
      expect(await tip(repoPath, run.branch!)).toBe(run.headCommit);

      // Reverting again is refused: the task is no longer Done.
      expect((await post(client, `/api/pipeline/${taskId}/revert`)).status).toBe(400);
      // Approving again brings the work back.
      expect((await post(client, `/api/pipeline/${taskId}/approve`)).status).toBe(200);
      for (const change of run.fileChanges.files) {
        expect(await readFile(path.join(repoPath, change.filePath), 'utf8')).toBe(change.content);
      }
      expect(await statusOf(client, taskId)).toMatchObject({ revertCommit: null });

      // Each move of the default branch was said on the project's stream (the graph view refetches).
      const moved = (await t.deps.events.replay(`project:${projectId}`, 0)).flatMap((event) =>
        event.type === 'head-moved' ? [event.data] : [],
      );
      expect(moved.map(({ branch, head: commit }) => [branch, commit])).toEqual([
        [defaultBranch, run.headCommit],
        [defaultBranch, head],
        [defaultBranch, await tip(repoPath, defaultBranch)],
      ]);
      // And each brought the branch's import graph up to date in the background.
      expect(refreshes.mock.calls.map(([repo, branch]) => [repo.id, branch])).toEqual([
        [projectId, defaultBranch],
        [projectId, defaultBranch],
        [projectId, defaultBranch],
      ]);
      refreshes.mockRestore();
    },
    LONG_TEST_MS,
  );

  it(
    'answers 409 naming the files when the revert conflicts, and changes nothing',
    async () => {
      const { client, taskId, projectId } = await newTask(t, {
        coderEngine: 'one-shot',
        title: 'Revert conflict helper',
      });
      const run = await runToEnd(t, client, taskId);
      const { repoPath, defaultBranch } = await repoOf(t, projectId);
      expect((await post(client, `/api/pipeline/${taskId}/approve`)).status).toBe(200);
      const file = run.fileChanges.files[0]!.filePath;
      await commitByHand(repoPath, file, 'export const edited = "after approval";\n');
      const before = await tip(repoPath, defaultBranch);

      const res = await post<{ files: string[] }>(client, `/api/pipeline/${taskId}/revert`);
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ error: 'MERGE_CONFLICT', files: [file] });
      expect(await tip(repoPath, defaultBranch)).toBe(before);
      expect((await gitIn(repoPath, ['status', '--porcelain'])).trim()).toBe('');
      expect(await taskStatusOf(client, taskId)).toBe('done');
    },
    LONG_TEST_MS,
  );

  it('is refused for a task that was never approved', async () => {
    const { client, taskId } = await newTask(t, { coderEngine: 'one-shot', title: 'Never approved' });
    const res = await post(client, `/api/pipeline/${taskId}/revert`);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('INVALID_PIPELINE_STATE');
  });
});
