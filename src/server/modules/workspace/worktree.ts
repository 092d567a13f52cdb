import { mkdir, readdir, realpath, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '@/server/lib/errors.js';
import { git, gitText } from '@/server/lib/git.js';
import { assertRevision, branchCommit, isValidBranchName, resolveCommit } from './refs.js';
import { withRepoLock } from './repo-lock.js';

export interface WorktreeEntry {
  /** Absolute path as git recorded it. */
  path: string;
  head: string | null;
  /** Short branch name, or null when detached or bare. */
  branch: string | null;
  bare: boolean;
  /** Git marks a worktree prunable when its directory is gone. */
  prunable: boolean;
}

/** The repository's worktrees, the main checkout first (`git worktree list --porcelain -z`). */
export async function listWorktrees(repoPath: string): Promise<WorktreeEntry[]> {
  const out = await gitText(['worktree', 'list', '--porcelain', '-z'], { cwd: repoPath });
  const entries: WorktreeEntry[] = [];
  let current: WorktreeEntry | null = null;
  for (const field of out.split('\0')) {
    if (field === '') {
      if (current) entries.push(current);
      current = null;
      continue;
    }
    const space = field.indexOf(' ');
    const key = space === -1 ? field : field.slice(0, space);
    const value = space === -1 ? '' : field.slice(space + 1);
    if (key === 'worktree') {
      current = { path: value, head: null, branch: null, bare: false, prunable: false };
    } else if (current) {
      if (key === 'HEAD') current.head = value;
      else if (key === 'branch') current.branch = value.replace(/^refs\/heads\//, '');
      else if (key === 'bare') current.bare = true;
      else if (key === 'prunable') current.prunable = true;
    }
  }
  if (current) entries.push(current);
  return entries;
}

/** The worktree registered at `dir`, comparing real paths (temp dirs are often symlinked). */
export async function findWorktree(repoPath: string, dir: string): Promise<WorktreeEntry | null> {
  return worktreeAt(await listWorktrees(repoPath), dir);
}

async function worktreeAt(entries: WorktreeEntry[], dir: string): Promise<WorktreeEntry | null> {
  const wanted = await canonical(dir);
  for (const entry of entries) {
    if ((await canonical(entry.path)) === wanted) return entry;
  }
  return null;
}

async function canonical(dir: string): Promise<string> {
  const absolute = path.resolve(dir);
  return realpath(absolute).catch(() => absolute);
}

/**
 * Gives a run its own checkout: a worktree at `worktreePath` on `branch`, branched from
 * `baseBranch`. Safe to call again after a restart:
 * - a worktree of `branch` already at `worktreePath` is reused as it is (uncommitted work kept);
 * - an existing `branch` is attached to a new worktree rather than recreated.
 *
 * Returns the commit the branch started from: the base branch's commit when the branch is
 * created here, otherwise the merge base of the branch and the base branch.
 */
export async function createRunWorktree(opts: {
  repoPath: string;
  worktreePath: string;
  branch: string;
  baseBranch: string;
}): Promise<{ baseCommit: string }> {
  const { repoPath, worktreePath, branch, baseBranch } = opts;
  if (!(await isValidBranchName(branch))) {
    throw new AppError('VALIDATION_ERROR', `Invalid branch name: ${JSON.stringify(branch)}`);
  }
  assertRevision(baseBranch, 'base branch');
  return withRepoLock(repoPath, async () => {
    const base = (await branchCommit(repoPath, baseBranch)) ?? (await resolveCommit(repoPath, baseBranch));
    if (!base) throw new AppError('NOT_FOUND', `Base branch ${baseBranch} not found`);

    // Forget worktrees whose directories were deleted, so their branches can be attached again
    // (git lists them as prunable; pruning when there are none would be a process for nothing).
    let worktrees = await listWorktrees(repoPath);
    if (worktrees.some((entry) => entry.prunable)) {
      await git(['worktree', 'prune'], { cwd: repoPath });
      worktrees = await listWorktrees(repoPath);
    }
    const existing = await worktreeAt(worktrees, worktreePath);
    if (existing) {
      if (existing.branch !== branch) {
        throw new AppError(
          'INTERNAL_ERROR',
          `${worktreePath} is already a worktree of ${existing.branch ?? 'a detached HEAD'}, not ${branch}`,
        );
      }
      return { baseCommit: await mergeBase(repoPath, branch, base) };
    }
    await refuseNonEmptyDirectory(worktreePath);
    await mkdir(path.dirname(path.resolve(worktreePath)), { recursive: true });

    if (await branchCommit(repoPath, branch)) {
      const holder = worktrees.find((entry) => entry.branch === branch);
      if (holder) {
        throw new AppError('INTERNAL_ERROR', `Branch ${branch} is already checked out at ${holder.path}`);
      }
      await git(['worktree', 'add', '--quiet', path.resolve(worktreePath), branch], { cwd: repoPath });
      return { baseCommit: await mergeBase(repoPath, branch, base) };
    }
    // Start from the commit resolved above, so the reported base is exactly where the branch began.
    await git(['worktree', 'add', '--quiet', '-b', branch, path.resolve(worktreePath), base], {
      cwd: repoPath,
    });
    return { baseCommit: base };
  });
}

async function mergeBase(repoPath: string, branch: string, base: string): Promise<string> {
  return (await gitText(['merge-base', `refs/heads/${branch}`, base], { cwd: repoPath })).trim();
}

/** Git would fail with a vaguer message; a leftover directory needs a person to look at it. */
async function refuseNonEmptyDirectory(dir: string): Promise<void> {
  const info = await stat(dir).catch(() => null);
  if (!info) return;
  if (!info.isDirectory() || (await readdir(dir)).length > 0) {
    throw new AppError('INTERNAL_ERROR', `${dir} exists and is not a worktree of this repository`);
  }
}

/**
 * Deletes the directories of the repository's linked worktrees that lie under `root` (the data
 * directory's worktrees/), before the repository itself goes: git cannot prune them once it is
 * gone. Worktrees elsewhere are never touched. Returns the paths removed.
 *
 * Only for deleting a whole project, where losing its work is the point; every other removal
 * goes through `safe-removal.ts`.
 */
export async function removeLinkedWorktrees(repoPath: string, root: string): Promise<string[]> {
  const inside = `${await canonical(root)}${path.sep}`;
  const main = await canonical(repoPath);
  const removed: string[] = [];
  for (const entry of await listWorktrees(repoPath)) {
    const dir = await canonical(entry.path);
    if (entry.bare || dir === main || !dir.startsWith(inside)) continue;
    await rm(dir, { recursive: true, force: true });
    removed.push(dir);
  }
  return removed;
}

/**
 * Puts a run's worktree, and its branch, back at `commit`: tracked changes and untracked files
 * (ignored ones kept) are discarded, and commits after it leave the branch.
 */
export async function resetWorktree(worktreePath: string, commit: string): Promise<void> {
  assertRevision(commit, 'commit');
  await git(['reset', '--hard', '--quiet', commit], { cwd: worktreePath });
  await git(['clean', '-fd', '--quiet'], { cwd: worktreePath });
}
