import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AppError } from '@/server/lib/errors.js';
import { GitError, git, gitText } from '@/server/lib/git.js';
import { branchCommit, isAncestor, isValidBranchName } from './refs.js';
import { withRepoLock } from './repo-lock.js';
import { listWorktrees } from './worktree.js';

/** Our own throwaway checkouts run none of the repository's hooks. */
const NO_HOOKS = ['-c', 'core.hooksPath=/dev/null'];

/**
 * Merges a task branch into the default branch with a merge commit (never a fast-forward), as
 * AutoCoder. The merge is computed without a working tree (`git merge-tree --write-tree`,
 * `commit-tree`); then the checkout that has the default branch checked out, if any, is moved
 * to the result (`read-tree -m -u`, which keeps unrelated local edits), and only then is the
 * branch ref moved, compare-and-swap on its old value. A checkout on another branch is not
 * touched.
 *
 * Throws `MERGE_CONFLICT` (details: `files`) and changes nothing when the branches conflict,
 * have no common history, or local changes in the checkout would be overwritten. Before
 * returning, git confirms that the default branch contains the branch head. When it already
 * did, returns `alreadyMerged: true` and the default branch's commit, without a new commit.
 */
export async function mergeBranch(opts: {
  repoPath: string;
  branch: string;
  defaultBranch: string;
  message: string;
}): Promise<{ mergeCommit: string; alreadyMerged: boolean }> {
  const { repoPath, branch, defaultBranch, message } = opts;
  for (const name of [branch, defaultBranch]) {
    if (!(await isValidBranchName(name))) {
      throw new AppError('VALIDATION_ERROR', `Invalid branch name: ${JSON.stringify(name)}`);
    }
  }
  return withRepoLock(repoPath, async () => {
    const theirs = await branchCommit(repoPath, branch);
    if (!theirs) throw new AppError('NOT_FOUND', `Branch ${branch} not found`);
    const ours = await branchCommit(repoPath, defaultBranch);
    if (!ours) throw new AppError('NOT_FOUND', `Branch ${defaultBranch} not found`);
    if (await isAncestor(repoPath, theirs, ours)) return { mergeCommit: ours, alreadyMerged: true };

    const tree = await mergeTree(repoPath, ours, theirs, branch, defaultBranch);
    const commit = (
      await gitText(
        [
          'commit-tree',
          '--no-gpg-sign',
          tree,
          '-p',
          ours,
          '-p',
          theirs,
          '-m',
          message.trim() || `Merge ${branch}`,
        ],
        { cwd: repoPath },
      )
    ).trim();

    const checkout = (await listWorktrees(repoPath)).find(
      (entry) => entry.branch === defaultBranch && !entry.bare && !entry.prunable,
    );
    if (checkout) await moveCheckout(checkout.path, ours, commit, defaultBranch);
    try {
      await git(
        ['update-ref', '-m', `merge ${branch} (AutoCoder)`, `refs/heads/${defaultBranch}`, commit, ours],
        {
          cwd: repoPath,
        },
      );
    } catch (error) {
      // The ref moved under us (another process): put the checkout back where its HEAD still is.
      if (checkout) await git(['read-tree', '-m', '-u', commit, ours], { cwd: checkout.path });
      throw error;
    }

    if (!(await isAncestor(repoPath, theirs, `refs/heads/${defaultBranch}`))) {
      throw new AppError('INTERNAL_ERROR', `Git does not confirm that ${defaultBranch} contains ${branch}`);
    }
    return { mergeCommit: commit, alreadyMerged: false };
  });
}

/** The merged tree, or MERGE_CONFLICT naming the files. Writes only objects. */
async function mergeTree(
  repoPath: string,
  ours: string,
  theirs: string,
  branch: string,
  defaultBranch: string,
): Promise<string> {
  try {
    const out = await gitText(['merge-tree', '--write-tree', '--no-messages', ours, theirs], {
      cwd: repoPath,
    });
    return out.split('\n')[0]?.trim() ?? '';
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    if (/unrelated histories/i.test(error.stderr)) {
      throw new AppError('MERGE_CONFLICT', `${branch} and ${defaultBranch} have no common history`, {
        files: [],
      });
    }
    if (error.exitCode !== 1) throw error;
  }
  // Exit code 1 means conflicts; git's runner keeps no stdout for failures, so ask git which
  // files conflict by trying the merge in a throwaway worktree.
  const files = await trialMergeConflicts(repoPath, ours, theirs);
  throw new AppError(
    'MERGE_CONFLICT',
    files.length > 0
      ? `Merging ${branch} into ${defaultBranch} conflicts in: ${files.join(', ')}`
      : `Merging ${branch} into ${defaultBranch} has conflicts`,
    { files },
  );
}

async function trialMergeConflicts(repoPath: string, ours: string, theirs: string): Promise<string[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'autocoder-merge-'));
  try {
    await git([...NO_HOOKS, 'worktree', 'add', '--quiet', '--detach', dir, ours], { cwd: repoPath });
    await git([...NO_HOOKS, 'merge', '--quiet', '--no-commit', '--no-ff', theirs], { cwd: dir }).catch(
      (error: unknown) => {
        if (!(error instanceof GitError && error.exitCode === 1)) throw error; // 1 = conflicts
      },
    );
    const out = await gitText(['diff', '--name-only', '--diff-filter=U', '-z'], { cwd: dir });
    return out.split('\0').filter(Boolean);
  } finally {
    await git(['worktree', 'remove', '--force', '--force', dir], { cwd: repoPath }).catch(() => {
      // Not registered if `worktree add` failed; the directory is removed below either way.
    });
    await rm(dir, { recursive: true, force: true });
    await git(['worktree', 'prune'], { cwd: repoPath });
  }
}

/**
 * Moves a checkout's index and files from `from` to `to` like a branch switch: local edits to
 * files the merge does not touch are kept; if an edit or an untracked file would be
 * overwritten, git refuses before changing anything and we report it as a conflict.
 */
async function moveCheckout(dir: string, from: string, to: string, defaultBranch: string): Promise<void> {
  // Stat-only differences must not count as local edits.
  await git(['update-index', '-q', '--refresh'], { cwd: dir }).catch((error: unknown) => {
    if (!(error instanceof GitError && error.exitCode === 1)) throw error; // 1 = some files modified
  });
  try {
    await git(['read-tree', '-m', '-u', from, to], { cwd: dir });
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    const files = [...error.stderr.matchAll(/(?:Entry|file) '([^']+)'|^\t(.+)$/gm)].map(
      (m) => m[1] ?? m[2] ?? '',
    );
    throw new AppError(
      'MERGE_CONFLICT',
      `Uncommitted changes in the ${defaultBranch} checkout at ${dir} would be overwritten${
        files.length > 0 ? `: ${files.join(', ')}` : ''
      }; commit or stash them first`,
      { files, checkout: dir },
    );
  }
}
