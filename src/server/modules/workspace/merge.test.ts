import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '@/server/lib/errors.js';
import { git, gitText } from '@/server/lib/git.js';
import { mergeBranch, revertMerge } from './merge.js';
import { removeWorktreeIfSafe } from './safe-removal.js';
import { commitFiles, head, makeRepo, status, type TempRepo } from './test-repo.js';
import { createRunWorktree, listWorktrees } from './worktree.js';

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
    expect(result).toMatchObject({ alreadyMerged: false, fastForward: false, mergedOnto: before });
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

  it('fast-forwards when the default branch has not moved, and updates the main checkout', async () => {
    const before = await head(t.repo, 'main');
    await commitFiles(worktreePath, { 'ff.txt': 'ff\n' }, 'ff 1');
    const work = await commitFiles(worktreePath, { 'ff2.txt': 'ff\n' }, 'ff 2');
    const result = await mergeBranch({
      repoPath: t.repo,
      branch,
      defaultBranch: 'main',
      message: 'Merge ff',
    });
    expect(result).toEqual({
      mergeCommit: work,
      mergedOnto: before,
      fastForward: true,
      alreadyMerged: false,
    });
    expect(await head(t.repo, 'main')).toBe(work);
    expect(existsSync(path.join(t.repo, 'ff2.txt'))).toBe(true);
    expect(await status(t.repo)).toBe('');
  });

  it('reports an already merged branch without a new commit', async () => {
    await commitFiles(worktreePath, { 'x.txt': 'x\n' }, 'x');
    const first = await mergeBranch({ repoPath: t.repo, branch, defaultBranch: 'main', message: 'Merge' });
    const again = await mergeBranch({ repoPath: t.repo, branch, defaultBranch: 'main', message: 'Merge' });
    expect(again).toMatchObject({ mergeCommit: first.mergeCommit, alreadyMerged: true });
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
    expect(empty).toMatchObject({ mergeCommit: first.mergeCommit, alreadyMerged: true });
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
    await removeWorktreeIfSafe({ repoPath: t.repo, worktreePath, defaultBranch: 'main' });
    await mergeBranch({ repoPath: t.repo, branch, defaultBranch: 'main', message: 'M' });
    expect(await isAncestor(work, 'main')).toBe(true);
  });

  it('rejects unknown branches', async () => {
    await expect(
      mergeBranch({ repoPath: t.repo, branch: 'autocoder/nope', defaultBranch: 'main', message: 'M' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('revertMerge', () => {
  const merge = (reapply?: string) =>
    mergeBranch({
      repoPath: t.repo,
      branch,
      defaultBranch: 'main',
      message: 'Merge',
      reapply: reapply ?? null,
    });
  const revert = (merged: { mergeCommit: string; mergedOnto: string }) =>
    revertMerge({ repoPath: t.repo, defaultBranch: 'main', ...merged, message: 'Revert the approval' });
  const files = () => gitText(['ls-tree', '-r', '--name-only', 'main'], { cwd: t.repo });

  it('takes back a fast-forward of several commits with one commit, keeping later work on main', async () => {
    await commitFiles(worktreePath, { 'a.txt': 'a\n' }, 'a');
    await commitFiles(worktreePath, { 'b.txt': 'b\n', 'shared.txt': 'one\nTWO\nthree\n' }, 'b');
    const merged = await merge();
    expect(merged.fastForward).toBe(true);
    await commitFiles(t.repo, { 'later.txt': 'later\n' }, 'later work on main');

    const { revertCommit } = await revert(merged);
    expect(revertCommit).not.toBeNull();
    expect(await head(t.repo, 'main')).toBe(revertCommit);
    const parents = (await gitText(['rev-list', '--parents', '-n1', revertCommit!], { cwd: t.repo })).trim();
    expect(parents.split(' ')).toHaveLength(2);
    expect((await files()).split('\n').filter(Boolean).sort()).toEqual([
      'README.md',
      'later.txt',
      'shared.txt',
    ]);
    expect(await gitText(['show', 'main:shared.txt'], { cwd: t.repo })).toBe('one\ntwo\nthree\n');
    // The checkout follows, and the branch keeps its commits.
    expect(existsSync(path.join(t.repo, 'a.txt'))).toBe(false);
    expect(await status(t.repo)).toBe('');
    expect(await isAncestor(merged.mergeCommit, branch)).toBe(true);
  });

  it('takes back a merge commit by its first parent', async () => {
    await commitFiles(worktreePath, { 'feature.txt': 'f\n' }, 'feature');
    await commitFiles(t.repo, { 'main-only.txt': 'm\n' }, 'main moves');
    const merged = await merge();
    expect(merged.fastForward).toBe(false);
    const { revertCommit } = await revert(merged);
    expect(await gitText(['rev-parse', `${revertCommit}^`], { cwd: t.repo })).toBe(`${merged.mergeCommit}\n`);
    expect((await files()).split('\n').filter(Boolean).sort()).toEqual([
      'README.md',
      'main-only.txt',
      'shared.txt',
    ]);
  });

  it('on conflict names the files and changes nothing', async () => {
    await commitFiles(worktreePath, { 'shared.txt': 'one\nBRANCH\nthree\n' }, 'branch edit');
    const merged = await merge();
    await commitFiles(t.repo, { 'shared.txt': 'one\nLATER\nthree\n' }, 'edited again on main');
    const before = await head(t.repo, 'main');
    const error = await conflictOf(revert(merged));
    expect(error.details.files).toEqual(['shared.txt']);
    expect(await head(t.repo, 'main')).toBe(before);
    expect(await status(t.repo)).toBe('');
  });

  it('is undone by the next merge of the branch, which reapplies it', async () => {
    await commitFiles(worktreePath, { 'feature.txt': 'f\n' }, 'feature');
    const merged = await merge();
    const { revertCommit } = await revert(merged);
    // Merging alone would change nothing: the branch is already contained.
    expect((await merge()).alreadyMerged).toBe(true);
    await commitFiles(worktreePath, { 'more.txt': 'm\n' }, 'more');
    const again = await merge(revertCommit!);
    expect(again.alreadyMerged).toBe(false);
    expect((await files()).split('\n').filter(Boolean).sort()).toEqual([
      'README.md',
      'feature.txt',
      'more.txt',
      'shared.txt',
    ]);
    expect(existsSync(path.join(t.repo, 'feature.txt'))).toBe(true);
  });
});
