import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '@/server/lib/errors.js';
import { git } from '@/server/lib/git.js';
import { mergeBranch } from './merge.js';
import { deleteBranchIfMerged, removeWorktreeIfSafe } from './safe-removal.js';
import { commitFiles, head, makeRepo, type TempRepo } from './test-repo.js';
import { createRunWorktree, listWorktrees } from './worktree.js';

let t: TempRepo;
let worktreePath: string;
const branch = 'autocoder/keep-01ABCDEF';
beforeEach(async () => {
  t = await makeRepo();
  worktreePath = path.join(t.root, 'wt');
  await createRunWorktree({ repoPath: t.repo, worktreePath, branch, baseBranch: 'main' });
});
afterEach(async () => t.cleanup());

const removal = () => removeWorktreeIfSafe({ repoPath: t.repo, worktreePath, defaultBranch: 'main' });
const branchDeletion = (name = branch) =>
  deleteBranchIfMerged({ repoPath: t.repo, branch: name, defaultBranch: 'main' });

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('removeWorktreeIfSafe', () => {
  it('removes a worktree whose commits its branch keeps (uncommitted files go); twice is fine', async () => {
    const work = await commitFiles(worktreePath, { 'kept.txt': 'kept\n' }, 'work');
    await writeFile(path.join(worktreePath, 'scratch.txt'), 'dirty');

    expect(await removal()).toEqual({ removed: true });
    expect(existsSync(worktreePath)).toBe(false);
    expect((await listWorktrees(t.repo)).map((w) => w.branch)).toEqual(['main']);
    expect(await head(t.repo, `refs/heads/${branch}`)).toBe(work);
    expect(await removal()).toEqual({ removed: false });
  });

  it('refuses a detached worktree whose commit no branch holds, and leaves it as it was', async () => {
    await git(['checkout', '--quiet', '--detach'], { cwd: worktreePath });
    const orphan = await commitFiles(worktreePath, { 'only-here.txt': 'x\n' }, 'detached work');

    const error = await refusal(removal());
    expect(error.code).toBe('WORK_NOT_MERGED');
    expect(error.details).toMatchObject({ head: orphan });
    expect(existsSync(path.join(worktreePath, 'only-here.txt'))).toBe(true);
    expect((await listWorktrees(t.repo)).length).toBe(2);
  });

  it('removes a detached worktree once the default branch contains its commit', async () => {
    await git(['checkout', '--quiet', '--detach'], { cwd: worktreePath });
    const work = await commitFiles(worktreePath, { 'merged.txt': 'x\n' }, 'detached work');
    await git(['merge', '--quiet', '--ff-only', work], { cwd: t.repo });
    expect(await removal()).toEqual({ removed: true });
  });

  it('refuses to remove the main checkout', async () => {
    await expect(
      removeWorktreeIfSafe({ repoPath: t.repo, worktreePath: t.repo, defaultBranch: 'main' }),
    ).rejects.toThrow(/main checkout/);
    expect(existsSync(path.join(t.repo, 'README.md'))).toBe(true);
  });
});

describe('deleteBranchIfMerged', () => {
  it('refuses a branch the default branch does not contain, and keeps it', async () => {
    const work = await commitFiles(worktreePath, { 'a.txt': 'a\n' }, 'work');
    await removal();
    const error = await refusal(branchDeletion());
    expect(error.code).toBe('WORK_NOT_MERGED');
    expect(await head(t.repo, `refs/heads/${branch}`)).toBe(work);
  });

  it('refuses a merged branch still checked out in a worktree', async () => {
    await commitFiles(worktreePath, { 'a.txt': 'a\n' }, 'work');
    await mergeBranch({ repoPath: t.repo, branch, defaultBranch: 'main', message: 'M' });
    expect((await refusal(branchDeletion())).code).toBe('WORK_NOT_MERGED');
  });

  it('deletes a merged branch whose worktree is gone', async () => {
    await commitFiles(worktreePath, { 'a.txt': 'a\n' }, 'work');
    await mergeBranch({ repoPath: t.repo, branch, defaultBranch: 'main', message: 'M' });
    await removal();
    expect(await branchDeletion()).toEqual({ deleted: true });
    expect(await branchDeletion()).toEqual({ deleted: false });
  });

  it('never deletes the default branch', async () => {
    expect((await refusal(branchDeletion('main'))).code).toBe('VALIDATION_ERROR');
  });
});

/**
 * Deleting a worktree or a branch goes through `safe-removal.ts` only. Project deletion deletes
 * its repository on purpose, explicitly, and the other `rm` calls remove temporary files of
 * their own; a new `rm` must be added here with its reason.
 */
const RAW_DELETIONS = [
  /['"]worktree['"],\s*['"]remove['"]/,
  /['"]branch['"],\s*(?:['"][^'"]*['"],\s*)*['"](?:-d|-D|--delete)['"]/,
  /['"]update-ref['"],\s*(?:['"][^'"]*['"],\s*)*['"](?:-d|--delete)['"]/,
  /\bworktree remove\b|\bbranch (?:-d|-D|--delete)\b|\bupdate-ref -d\b/,
];
const FS_REMOVAL = /\b(?:rm|rmSync|rmdir|rmdirSync|unlink|unlinkSync)\(/;
const RM_ALLOWED: Record<string, string> = {
  'src/server/modules/workspace/worktree.ts': 'removeLinkedWorktrees: deleting a project, on purpose',
  'src/server/modules/workspace/repository.ts': 'removeRepository (deleting a project) and a failed clone',
  'src/server/modules/workspace/apply-changes.ts': 'its own temporary file',
  'src/server/modules/sandbox/sandbox.ts': "a check's private /tmp",
  'src/server/modules/sandbox/cgroups.ts': "a sandbox's cgroup directories (rmdir of an empty group)",
  'src/server/modules/sandbox/egress/egress-testing.ts': 'test sockets',
  'src/server/modules/sandbox/sandbox-probe.main.ts': 'the fixture it made',
  'src/server/modules/agent-tools/text-file.ts': 'its own temporary file, when a write fails',
  'src/server/modules/agent-tools/write-tools.ts':
    "delete_file: one file of the run's worktree, confined, as the agent asked",
  'src/server/modules/agent-tools/test-worktree.ts': 'test worktrees',
  'src/server/modules/llm/simulator/tool-test-executor.ts': "the simulator tests' temporary directories",
  'src/server/modules/llm/simulator/engine-test-kit.ts': "the engine tests' temporary repositories",
  'src/server/modules/setup/dep-cache.ts':
    'its own entries (eviction, Clear) and a staging copy, inside dataDir/cache',
  'src/server/lib/git.ts': "an untrusted git's temporary HOME",
  'src/server/db/client.ts': 'a database directory it created',
  'src/server/modules/workspace/test-repo.ts': 'test repositories',
  'src/server/modules/graph/graph-service.ts': "the import graph's own mirror of a project (dataDir/graph)",
  'src/server/modules/graph/mirror.ts': 'its placeholder tree of a repository, rebuilt from git objects',
};

async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await sourceFiles(full)));
    else if (/\.(?:ts|tsx|mjs|js)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) out.push(full);
  }
  return out;
}

function offences(file: string, text: string): string[] {
  const found: string[] = [];
  if (file !== 'src/server/modules/workspace/safe-removal.ts') {
    for (const pattern of RAW_DELETIONS) if (pattern.test(text)) found.push(`${file}: ${pattern}`);
  }
  // Worktrees and repositories belong to the server; benchmarks and scripts clean up their own temp dirs.
  const server = file.startsWith('src/server/') && !file.includes('/testing/');
  if (server && FS_REMOVAL.test(text) && !(file in RM_ALLOWED)) found.push(`${file}: ${FS_REMOVAL}`);
  return found;
}

describe('no other code deletes a worktree or a branch', () => {
  it('finds the raw commands and file removals it looks for', () => {
    const file = 'src/server/modules/pipeline/x.ts';
    expect(offences(file, "git(['worktree', 'remove', dir])")).toHaveLength(1);
    expect(offences(file, "git(['branch', '-D', name])")).toHaveLength(1);
    expect(offences(file, "git(['branch', '--force', '-d', name])")).toHaveLength(1);
    expect(offences(file, "git(['update-ref', '-d', ref])")).toHaveLength(1);
    expect(offences(file, 'sh -c "git worktree remove x"')).toHaveLength(1);
    expect(offences(file, 'await rm(dir, { recursive: true })')).toHaveLength(1);
    expect(offences(file, "git(['worktree', 'add', dir])")).toEqual([]);
  });

  it('holds for every source file outside safe-removal.ts', async () => {
    const root = path.resolve(import.meta.dirname, '../../../..');
    const found: string[] = [];
    for (const dir of ['src', 'bench', 'scripts']) {
      if (!existsSync(path.join(root, dir))) continue;
      for (const full of await sourceFiles(path.join(root, dir))) {
        const file = path.relative(root, full).split(path.sep).join('/');
        found.push(...offences(file, await readFile(full, 'utf8')));
      }
    }
    expect(found).toEqual([]);
  });
});
