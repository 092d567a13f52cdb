import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '@/server/lib/errors.js';
import { git, gitText } from '@/server/lib/git.js';
import { mergeBranch } from './merge.js';
import { commitFiles, head, makeRepo, status, type TempRepo } from './test-repo.js';
import { createRunWorktree, listWorktrees, removeWorktree } from './worktree.js';

let t: TempRepo;
let worktreePath: string;
const branch = 'autocoder/feature-01ABCDEF';

beforeEach(async () => {
  t = await makeRepo();
  await commitFiles(t.repo, { 'shared.txt': 'one\ntwo\nthree\n' }, 'shared');
  worktreePath = path.join(t.root, 'wt');
  await createRunWorktree({ repoPath: t.repo, worktreePath, branch, baseBranch: 'main' });
});
afterEach(async () => t.cleanup());

const isAncestor = (a: string, b: string) =>
  git(['merge-base', '--is-ancestor', a, b], { cwd: t.repo }).then(
    () => true,
    () => false,
  );

async function conflictOf(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe('MERGE_CONFLICT');
  return error as AppError;
}

describe('mergeBranch', () => {
  it('merges with a merge commit and updates the main checkout', async () => {
    const work = await commitFiles(worktreePath, { 'src/feature.ts': 'export {};\n' }, 'feature');
    await commitFiles(t.repo, { 'main-only.txt': 'main\n' }, 'main moves on');
    const before = await head(t.repo);
    await writeFile(path.join(t.repo, 'README.md'), 'local edit kept\n');

    const result = await mergeBranch({
      repoPath: t.repo,
      branch,
      defaultBranch: 'main',
      message: 'Merge feature',
    });
    expect(result.alreadyMerged).toBe(false);
    expect(await head(t.repo, 'main')).toBe(result.mergeCommit);
    expect(await isAncestor(work, 'main')).toBe(true);
    const parents = (
      await gitText(['rev-list', '--parents', '-n1', result.mergeCommit], { cwd: t.repo })
    ).trim();
    expect(parents.split(' ')).toEqual([result.mergeCommit, before, work]);
    expect(await gitText(['log', '-1', '--format=%an%n%s', 'main'], { cwd: t.repo })).toBe(
      'AutoCoder\nMerge feature\n',
    );

    expect(await readFile(path.join(t.repo, 'src/feature.ts'), 'utf8')).toBe('export {};\n');
    expect(await readFile(path.join(t.repo, 'README.md'), 'utf8')).toBe('local edit kept\n');
    expect(await status(t.repo)).toBe('M README.md');
  });

  it('makes a merge commit even when a fast-forward would do', async () => {
    const work = await commitFiles(worktreePath, { 'ff.txt': 'ff\n' }, 'ff');
    const result = await mergeBranch({
      repoPath: t.repo,
      branch,
      defaultBranch: 'main',
      message: 'Merge ff',
    });
    expect(result.mergeCommit).not.toBe(work);
    expect(existsSync(path.join(t.repo, 'ff.txt'))).toBe(true);
    expect(await status(t.repo)).toBe('');
  });

  it('reports an already merged branch without a new commit', async () => {
    await commitFiles(worktreePath, { 'x.txt': 'x\n' }, 'x');
    const first = await mergeBranch({ repoPath: t.repo, branch, defaultBranch: 'main', message: 'Merge' });
    const again = await mergeBranch({ repoPath: t.repo, branch, defaultBranch: 'main', message: 'Merge' });
    expect(again).toEqual({ mergeCommit: first.mergeCommit, alreadyMerged: true });
    // A branch with no commits of its own is contained from the start.
    await createRunWorktree({
      repoPath: t.repo,
      worktreePath: `${worktreePath}-2`,
      branch: 'autocoder/empty',
      baseBranch: 'main',
    });
    const empty = await mergeBranch({
      repoPath: t.repo,
      branch: 'autocoder/empty',
      defaultBranch: 'main',
      message: 'M',
    });
    expect(empty).toEqual({ mergeCommit: first.mergeCommit, alreadyMerged: true });
  });

  it('on conflict throws MERGE_CONFLICT naming the files and leaves everything as it was', async () => {
    await commitFiles(
      worktreePath,
      { 'shared.txt': 'one\nBRANCH\nthree\n', 'clean.txt': 'c\n' },
      'branch edit',
    );
    await commitFiles(t.repo, { 'shared.txt': 'one\nMAIN\nthree\n' }, 'main edit');
    await writeFile(path.join(t.repo, 'untracked.txt'), 'mine');
    const mainBefore = await head(t.repo, 'main');
    const branchBefore = await head(t.repo, branch);
    const statusBefore = await status(t.repo);
    const worktreesBefore = await listWorktrees(t.repo);

    const error = await conflictOf(
      mergeBranch({ repoPath: t.repo, branch, defaultBranch: 'main', message: 'M' }),
    );
    expect(error.details.files).toEqual(['shared.txt']);
    expect(error.message).toContain('shared.txt');

    expect(await head(t.repo, 'main')).toBe(mainBefore);
    expect(await head(t.repo, branch)).toBe(branchBefore);
    expect(await status(t.repo)).toBe(statusBefore);
    expect(await readFile(path.join(t.repo, 'shared.txt'), 'utf8')).toBe('one\nMAIN\nthree\n');
    expect(existsSync(path.join(t.repo, 'clean.txt'))).toBe(false);
    expect(existsSync(path.join(t.repo, '.git', 'MERGE_HEAD'))).toBe(false);
    expect(await listWorktrees(t.repo)).toEqual(worktreesBefore);
  });

  it('refuses, changing nothing, when uncommitted edits in the main checkout would be overwritten', async () => {
    await commitFiles(worktreePath, { 'shared.txt': 'one\nBRANCH\nthree\n' }, 'branch edit');
    await writeFile(path.join(t.repo, 'shared.txt'), 'uncommitted\n');
    const mainBefore = await head(t.repo, 'main');
    const error = await conflictOf(
      mergeBranch({ repoPath: t.repo, branch, defaultBranch: 'main', message: 'M' }),
    );
    expect(error.details.files).toEqual(['shared.txt']);
    expect(await head(t.repo, 'main')).toBe(mainBefore);
    expect(await readFile(path.join(t.repo, 'shared.txt'), 'utf8')).toBe('uncommitted\n');
  });

  it('leaves a main checkout on another branch alone and only moves the default branch', async () => {
    const work = await commitFiles(worktreePath, { 'feature.txt': 'f\n' }, 'feature');
    await git(['checkout', '--quiet', '-b', 'elsewhere'], { cwd: t.repo });
    const result = await mergeBranch({ repoPath: t.repo, branch, defaultBranch: 'main', message: 'M' });
    expect(await head(t.repo, 'main')).toBe(result.mergeCommit);
    expect(await isAncestor(work, 'main')).toBe(true);
    expect(existsSync(path.join(t.repo, 'feature.txt'))).toBe(false);
    expect(await status(t.repo)).toBe('');
  });

  it('keeps the branch mergeable after its worktree is removed', async () => {
    const work = await commitFiles(worktreePath, { 'late.txt': 'late\n' }, 'late');
    await removeWorktree(t.repo, worktreePath);
    await mergeBranch({ repoPath: t.repo, branch, defaultBranch: 'main', message: 'M' });
    expect(await isAncestor(work, 'main')).toBe(true);
  });

  it('rejects unknown branches', async () => {
    await expect(
      mergeBranch({ repoPath: t.repo, branch: 'autocoder/nope', defaultBranch: 'main', message: 'M' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
