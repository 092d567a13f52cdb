import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckResultData, StoredEvent } from '@/contracts/pipeline.js';
import { createTestApp, type TestApp } from '@/server/testing/test-app.js';
import { LONG_TEST_MS, newTask, repoOf, runToEnd, type TaskSetup, taskEvents } from './testing/run-kit.js';

/**
 * The proof of issue #23, item 1: a project's check leaves a nested repository under a gitlink
 * whose config sets core.fsmonitor to a script of the user's; the server's next git in the worktree
 * (`git add -A` of the fixing step) would enter it and run the script as the server, outside the
 * sandbox. Now the check fails with the path named, the run stops, and nothing of the step is
 * committed.
 */

const run = promisify(execFile);
const plainGit = (cwd: string, args: string[]) =>
  run('git', ['-c', 'user.name=T', '-c', 'user.email=t@e.x', ...args], { cwd });

let t: TestApp;
let scratch: string;
beforeAll(async () => {
  t = await createTestApp();
  scratch = await mkdtemp(path.join(tmpdir(), 'autocoder-nested-proof-'));
});
afterAll(async () => {
  await t.close();
  await rm(scratch, { recursive: true, force: true });
});

/**
 * A repository to nest: one commit, its git directory committed in the project as plain files
 * (`seed/gitdir`, a name git does not treat as a repository) and its commit as the project's gitlink
 * `sub`, so that the copy the check makes is at the gitlink's commit and git looks inside it.
 */
async function projectWithGitlink(setup: TaskSetup, form: 'directory' | 'gitfile', marker: string) {
  const { repoPath } = await repoOf(t, setup.projectId);
  const seed = await mkdtemp(path.join(scratch, 'seed-'));
  await run('git', ['init', '--quiet', '--initial-branch=main', seed]);
  await writeFile(path.join(seed, 'README.md'), 'nested\n');
  await plainGit(seed, ['add', 'README.md']);
  await plainGit(seed, ['commit', '--quiet', '-m', 'nested']);
  const commit = (await run('git', ['rev-parse', 'HEAD'], { cwd: seed })).stdout.trim();
  await cp(path.join(seed, '.git'), path.join(repoPath, 'seed', 'gitdir'), { recursive: true });
  await writeFile(path.join(repoPath, 'seed', 'README.md'), 'nested\n');

  // The check: the nested repository (a directory, or a gitfile pointing at a git directory beside
  // it), its fsmonitor a script that writes the marker outside the worktree; then a failing test,
  // so that the coder is asked for a fix and the server runs `git add -A` in the worktree.
  const nest =
    form === 'directory'
      ? 'cp -R seed/gitdir sub/.git && CONFIG=sub/.git/config'
      : 'cp -R seed/gitdir .nested-gitdir && printf "gitdir: %s/.nested-gitdir\\n" "$PWD" > sub/.git && CONFIG=.nested-gitdir/config';
  const check = [
    'mkdir -p sub',
    nest,
    'cp seed/README.md sub/README.md',
    `printf '#!/bin/sh\\necho "fsmonitor ran as $(id -u) in $PWD" >> ${marker}\\n' > fsmonitor.sh`,
    'chmod +x fsmonitor.sh',
    'printf "[core]\\n\\tfsmonitor = %s/fsmonitor.sh\\n" "$PWD" >> "$CONFIG"',
    'echo "1 test failed" >&2',
    'exit 1',
    '',
  ].join('\n');
  await writeFile(path.join(repoPath, 'check.sh'), check);
  await plainGit(repoPath, ['add', 'check.sh', 'seed']);
  await plainGit(repoPath, ['update-index', '--add', '--cacheinfo', `160000,${commit},sub`]);
  await plainGit(repoPath, ['commit', '--quiet', '-m', 'A submodule, and the check']);
  const res = await setup.client.patch(`/api/projects/${setup.projectId}`, { checkCommand: 'sh check.sh' });
  expect(res.status).toBe(200);
  return { repoPath };
}

const checkResults = (events: StoredEvent[]): CheckResultData[] =>
  events.flatMap((e) => (e.type === 'check-result' ? [e.data] : []));

describe.each(['directory', 'gitfile'] as const)(
  'a check that nests a repository (sub/.git as a %s)',
  (form) => {
    let setup: TaskSetup;
    let marker: string;
    let repoPath: string;

    beforeAll(async () => {
      marker = path.join(scratch, `marker-${form}`);
      setup = await newTask(t, {
        title: `Nested ${form}`,
        description: 'A function that greets a person by name.',
      });
      ({ repoPath } = await projectWithGitlink(setup, form, marker));
    }, LONG_TEST_MS);

    it(
      'never runs its fsmonitor, stops the run naming sub/.git, and commits nothing of the step',
      async () => {
        const status = await runToEnd(t, setup.client, setup.taskId);

        // No program of the check ran outside the sandbox.
        expect(await readFile(marker, 'utf8').catch(() => 'no marker')).toBe('no marker');

        // The run ended with the nested repository named, not sent to the coder as a failing test.
        expect(status.status).toBe('failed');
        expect(status.errorDetails).toMatchObject({ type: 'nested_repository', retryable: false });
        expect(status.errorDetails?.message).toContain('nested git repository at sub/.git');
        expect(status.calls.filter((call) => call.agent === 'reviewer')).toEqual([]);
        const [result, ...others] = checkResults(await taskEvents(t, setup.taskId));
        expect(others).toEqual([]);
        expect(result).toMatchObject({ passed: false, exitCode: 1 });
        expect(result?.tail).toContain(
          'the check left a nested git repository at sub/.git; AutoCoder does not commit or run git on it',
        );

        // The branch holds the coder's commits (none, when the coder ran the check within its
        // step: that step is not committed) and nothing the check wrote.
        const branch = status.branch ?? '';
        expect(branch).not.toBe('');
        expect(
          (await run('git', ['rev-parse', `refs/heads/${branch}`], { cwd: repoPath })).stdout.trim(),
        ).toBe(status.headCommit ?? status.baseCommit);
        const files = (await run('git', ['ls-tree', '-r', '--name-only', branch], { cwd: repoPath })).stdout;
        expect(files).not.toContain('fsmonitor.sh');
        expect(files).not.toContain('.nested-gitdir');
        const gitlink = (await run('git', ['ls-tree', branch, 'sub'], { cwd: repoPath })).stdout;
        expect(gitlink).toMatch(/^160000 commit /);
      },
      LONG_TEST_MS,
    );
  },
);
