// A passed run whose branch touches many files with many changed lines, as the diff and approve
// benchmarks need it: the simulator runs the pipeline, then the branch gets the big change.
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import type { Task } from '../src/contracts/tasks.js';
import type { BenchClient } from './lib/http.js';

const run = promisify(execFile);

/** What the branch changes: `files` files (half modified, half added) with `lines` changed lines in all. */
export interface BigChange {
  files: number;
  lines: number;
}

export const git = (cwd: string, args: string[]) =>
  run('git', ['-c', 'user.name=Bench', '-c', 'user.email=bench@localhost', ...args], {
    cwd,
    maxBuffer: 64 * 1024 * 1024,
  });

/** A source-like line: files differ, and so do their lines. */
const line = (file: number, index: number, salt: string) =>
  `export const value_${file}_${index} = '${salt}-${file}-${index}-${'x'.repeat(24)}';`;
const extensions = ['ts', 'tsx', 'py', 'go', 'md', 'json', 'css', 'rs'];
const fileName = (dir: string, index: number) =>
  path.join(dir, `pkg${index % 10}`, `module-${index}.${extensions[index % extensions.length] ?? 'txt'}`);

/** Writes `count` files (numbered from `first`, under `dir` of the checkout `cwd`) and commits them. */
async function writeFiles(
  cwd: string,
  dir: string,
  first: number,
  count: number,
  content: (file: number) => string,
  message: string,
) {
  for (let file = first; file < first + count; file++) {
    const target = path.join(cwd, fileName(dir, file));
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content(file));
  }
  await git(cwd, ['add', '-A']);
  await git(cwd, ['commit', '--quiet', '--no-verify', '-m', message]);
}

/** Polls the task's run until it is no longer running. */
export async function waitForRun(
  owner: BenchClient,
  taskId: string,
): Promise<{ runId: string; status: string }> {
  const deadline = performance.now() + 120_000;
  for (;;) {
    const status = await owner.json<{ runId: string; status: string }>(
      'GET',
      `/api/pipeline/${taskId}/status`,
      undefined,
      200,
    );
    if (status.status !== 'running') return status;
    if (performance.now() > deadline) throw new Error('the run did not end within 120 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface BigRun {
  taskId: string;
  runId: string;
  /** The project's main checkout (the default branch is checked out there). */
  repoPath: string;
  /** The run's worktree, kept until approval. */
  worktree: string;
}

/**
 * A task whose passed run's branch makes `change`: half the files are committed to the default
 * branch before the run starts (the branch replaces half their lines), half are new. `dir` keeps
 * the files of several such runs apart ('' for the repository's root); `title` names the task,
 * and with it the simulator's own files.
 */
export async function createBigRun(
  owner: BenchClient,
  where: { dataDir: string; projectId: string },
  change: BigChange,
  task: { title: string; dir: string },
): Promise<BigRun> {
  const modified = Math.floor(change.files / 2);
  const added = change.files - modified;
  const perFile = Math.max(2, Math.round(change.lines / change.files));
  const half = Math.floor(perFile / 2);
  const repoPath = path.join(where.dataDir, 'repos', where.projectId);
  await writeFiles(
    repoPath,
    task.dir,
    0,
    modified,
    (file) => `${Array.from({ length: perFile }, (_, i) => line(file, i, 'base')).join('\n')}\n`,
    'Files the run will change',
  );

  const created = await owner.json<Task>(
    'POST',
    '/api/tasks',
    {
      projectId: where.projectId,
      title: task.title,
      description: 'A function that greets a person by name.',
    },
    201,
  );
  await owner.json('POST', `/api/tasks/${created.id}/start-pipeline`, { provider: 'simulator' }, 202);
  const ended = await waitForRun(owner, created.id);
  if (ended.status !== 'passed') throw new Error(`the run ended ${ended.status}, expected passed`);

  // On the run's branch, in its worktree: every modified file gets `half` lines replaced (half
  // deletions, half additions), every added file `perFile` lines.
  const worktree = path.join(where.dataDir, 'worktrees', ended.runId);
  await writeFiles(
    worktree,
    task.dir,
    0,
    modified,
    (file) =>
      `${Array.from({ length: perFile }, (_, i) => line(file, i, i < half ? 'changed' : 'base')).join('\n')}\n`,
    'Change half of every file',
  );
  await writeFiles(
    worktree,
    task.dir,
    modified,
    added,
    (file) => `${Array.from({ length: perFile }, (_, i) => line(file, i, 'new')).join('\n')}\n`,
    'Add the other files',
  );
  return { taskId: created.id, runId: ended.runId, repoPath, worktree };
}
