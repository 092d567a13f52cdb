// The review-page part's task, made through the real app: an account and its project, the files
// the change modifies pushed to the default branch over git HTTP (an agent token, as Settings →
// Agent tokens makes it), a task run to Review by the offline simulator (its coder changes one
// line of one of those files: `[simulate: big-edit=…]`), then the rest of the change pushed to
// the task's branch over git HTTP (a fast-forward, which the push policy lets through for a task
// in Review). The diff the page shows is then the server's own, computed by git.
import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import type { RunDiff } from '../src/contracts/diff.js';
import type { Task } from '../src/contracts/tasks.js';
import { waitForRun } from './big-run.js';
import type { BenchClient } from './lib/http.js';
import { registerWithProject } from './lib/http.js';
import { makeTempDir } from './lib/processes.js';
import { type ChangedFile, type ReviewChange, reviewChange } from './review-page-content.js';

const run = promisify(execFile);

const git = (cwd: string, args: string[]) =>
  run('git', ['-c', 'user.name=Bench', '-c', 'user.email=bench@localhost', ...args], {
    cwd,
    maxBuffer: 64 * 1024 * 1024,
    // No credential helper or terminal prompt: the token is in the URL.
    env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: 'true' },
  });

export interface ReviewTask {
  projectId: string;
  taskId: string;
  runId: string;
  branch: string;
  /** The diff as the API serves it. */
  shape: {
    files: number;
    modified: number;
    added: number;
    additions: number;
    deletions: number;
    languages: string[];
    longestLine: number;
    summaryBytes: number;
  };
  setupMs: number;
}

async function writeFiles(cwd: string, files: readonly { path: string; content: string }[]) {
  for (const file of files) {
    const target = path.join(cwd, file.path);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, file.content);
  }
}

/** Makes the task in Review whose branch makes `change`; `port` is the server's. */
export async function createReviewTask(
  owner: BenchClient,
  port: number,
  change: ReviewChange,
): Promise<ReviewTask> {
  const since = performance.now();
  const projectId = await registerWithProject(owner, 'review-page@example.com', 'review-page-password');
  const { token } = await owner.json<{ token: string }>('POST', '/api/tokens', { name: 'Bench pusher' }, 201);
  const files = reviewChange(change);
  const modified = files.filter((file): file is ChangedFile & { base: string } => file.base !== null);
  const largest = [...modified].sort((a, b) => b.base.length - a.base.length)[0];
  if (!largest) throw new Error('the change modifies no file');

  const work = await makeTempDir('autocoder-bench-review-clone-');
  try {
    const clone = path.join(work, 'clone');
    await git(work, [
      'clone',
      '--quiet',
      `http://agent:${token}@127.0.0.1:${port}/git/${projectId}.git`,
      'clone',
    ]);
    const { stdout: head } = await git(clone, ['symbolic-ref', '--short', 'HEAD']);
    const defaultBranch = head.trim();

    // The files the change modifies, as they are on the default branch before the task starts.
    await writeFiles(
      clone,
      modified.map((file) => ({ path: file.path, content: file.base })),
    );
    await git(clone, ['add', '-A']);
    await git(clone, ['commit', '--quiet', '--no-verify', '-m', 'Files the review will show changed']);
    await git(clone, ['push', '--quiet', 'origin', `HEAD:${defaultBranch}`]);

    const task = await owner.json<Task>(
      'POST',
      '/api/tasks',
      {
        projectId,
        title: 'Rework the handlers, panels and workers',
        description: `Change the modules across the repository. [simulate: big-edit=${largest.path}]`,
      },
      201,
    );
    await owner.json('POST', `/api/tasks/${task.id}/start-pipeline`, { provider: 'simulator' }, 202);
    const ended = await waitForRun(owner, task.id);
    if (ended.status !== 'passed')
      throw new Error(`the simulated run ended ${ended.status}, expected passed`);
    const after = await owner.json<Task>('GET', `/api/tasks/${task.id}`, undefined, 200);
    if (after.status !== 'review') throw new Error(`the task is in ${after.status}, expected review`);
    const runInfo = await owner.json<{ branch?: string | null }>(
      'GET',
      `/api/pipeline/${task.id}/status`,
      undefined,
      200,
    );
    const branch = runInfo.branch;
    if (!branch) throw new Error('the run has no branch');

    // The rest of the change, on top of the run's commits: a fast-forward of the task's branch.
    await git(clone, ['fetch', '--quiet', 'origin', `${branch}:refs/remotes/origin/${branch}`]);
    await git(clone, ['checkout', '--quiet', '-B', 'review-change', `origin/${branch}`]);
    await writeFiles(
      clone,
      files.map((file) => ({ path: file.path, content: file.head })),
    );
    await git(clone, ['add', '-A']);
    await git(clone, ['commit', '--quiet', '--no-verify', '-m', 'Rework the modules across the repository']);
    await git(clone, ['push', '--quiet', 'origin', `HEAD:${branch}`]);

    const answer = await owner.request('GET', `/api/pipeline/runs/${ended.runId}/diff`);
    if (answer.status !== 200)
      throw new Error(`the diff answered ${answer.status}: ${answer.body.toString().slice(0, 200)}`);
    const diff = JSON.parse(answer.body.toString('utf8')) as RunDiff;
    const shape = {
      files: diff.stats.filesChanged,
      modified: diff.files.filter((file) => file.status === 'modified').length,
      added: diff.files.filter((file) => file.status === 'added').length,
      additions: diff.stats.additions,
      deletions: diff.stats.deletions,
      languages: [...new Set(diff.files.map((file) => file.language))].sort(),
      longestLine: Math.max(...files.flatMap((file) => file.head.split('\n').map((line) => line.length))),
      summaryBytes: answer.body.length,
    };
    const truncated = diff.files.filter((file) => file.truncated).length;
    if (truncated > 0) throw new Error(`${truncated} files of the diff came without their patch`);
    return {
      projectId,
      taskId: task.id,
      runId: ended.runId,
      branch,
      shape,
      setupMs: performance.now() - since,
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
