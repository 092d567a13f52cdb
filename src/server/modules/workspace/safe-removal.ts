import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '@/server/lib/errors.js';
import { git } from '@/server/lib/git.js';
import { branchCommit, isAncestor, isValidBranchName } from './refs.js';
import { withRepoLock } from './repo-lock.js';
import { findWorktree, listWorktrees } from './worktree.js';

/**
 * The only code that deletes a worktree or a branch of a project's repository (deleting a whole
 * project is the one exception, `removeLinkedWorktrees` + `removeRepository`, and it is explicit).
 * Each function checks, under the repository's lock and right before deleting, that no commit
 * becomes unreachable, and refuses otherwise; `safe-removal.test.ts` scans the sources so that no
 * other file calls the raw git commands.
 */

/**
 * Removes a run's worktree (uncommitted files in it are discarded) when its HEAD stays
 * reachable: from the default branch (an approved run), or from the worktree's own branch,
 * which is kept (a failed or cancelled run keeps its commits there). A detached worktree whose
 * HEAD the default branch does not contain is refused with `WORK_NOT_MERGED`. Does nothing when
 * the worktree is already gone; never removes the main checkout.
 */
export async function removeWorktreeIfSafe(opts: {
  repoPath: string;
  worktreePath: string;
  defaultBranch: string;
}): Promise<{ removed: boolean }> {
  const { repoPath, worktreePath, defaultBranch } = opts;
  return withRepoLock(repoPath, async () => {
    const entry = await findWorktree(repoPath, worktreePath);
    let removed = false;
    if (entry && !entry.bare && !entry.prunable) {
      if ((await canonical(entry.path)) === (await canonical(repoPath))) {
        throw new AppError('INTERNAL_ERROR', 'Refusing to remove the main checkout');
      }
      if (entry.head && !(await headIsKept(repoPath, entry.head, entry.branch, defaultBranch))) {
        throw new AppError(
          'WORK_NOT_MERGED',
          `Refusing to remove ${entry.path}: its commit ${entry.head.slice(0, 12)} is on no branch that stays`,
          { head: entry.head },
        );
      }
      await git(['worktree', 'remove', '--force', '--force', entry.path], { cwd: repoPath });
      removed = true;
    }
    // Forget worktrees whose directories are gone (git keeps their commits: they are on branches).
    await git(['worktree', 'prune'], { cwd: repoPath });
    return { removed };
  });
}

/**
 * Deletes `branch` only when the default branch contains its head; otherwise refuses with
 * `WORK_NOT_MERGED`. A branch checked out in a worktree is refused too. The ref is deleted
 * compare-and-swap on the head just checked, so a commit added meanwhile is never dropped.
 */
export async function deleteBranchIfMerged(opts: {
  repoPath: string;
  branch: string;
  defaultBranch: string;
}): Promise<{ deleted: boolean }> {
  const { repoPath, branch, defaultBranch } = opts;
  if (!(await isValidBranchName(branch)) || branch === defaultBranch) {
    throw new AppError('VALIDATION_ERROR', `Invalid branch to delete: ${JSON.stringify(branch)}`);
  }
  return withRepoLock(repoPath, async () => {
    const head = await branchCommit(repoPath, branch);
    if (!head) return { deleted: false };
    const target = await branchCommit(repoPath, defaultBranch);
    if (!target || !(await isAncestor(repoPath, head, target))) {
      throw new AppError(
        'WORK_NOT_MERGED',
        `Refusing to delete ${branch}: ${defaultBranch} does not contain it`,
        {
          head,
        },
      );
    }
    // update-ref refuses a checked-out branch only for the main checkout; ask git about all.
    if ((await listWorktrees(repoPath)).some((entry) => entry.branch === branch)) {
      throw new AppError('WORK_NOT_MERGED', `Refusing to delete ${branch}: it is checked out in a worktree`, {
        head,
      });
    }
    await git(['update-ref', '-d', `refs/heads/${branch}`, head], { cwd: repoPath });
    return { deleted: true };
  });
}

/** The worktree's HEAD is contained in the default branch, or in its own branch (which stays). */
async function headIsKept(
  repoPath: string,
  head: string,
  branch: string | null,
  defaultBranch: string,
): Promise<boolean> {
  for (const name of [defaultBranch, branch]) {
    if (!name) continue;
    const tip = await branchCommit(repoPath, name);
    if (tip && (await isAncestor(repoPath, head, tip))) return true;
  }
  return false;
}

async function canonical(dir: string): Promise<string> {
  const absolute = path.resolve(dir);
  return realpath(absolute).catch(() => absolute);
}
