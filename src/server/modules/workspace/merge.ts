import { AppError } from '@/server/lib/errors.js';
import { GitError, git, gitText } from '@/server/lib/git.js';
import { branchCommit, isAncestor, isValidBranchName } from './refs.js';
import { withRepoLock } from './repo-lock.js';
import { listWorktrees } from './worktree.js';

/** What an approval did to the default branch; recorded with the run, so that it can be reverted. */
export interface MergeResult {
  /** The default branch's commit afterwards: a merge commit, or the branch head (fast-forward). */
  mergeCommit: string;
  /** The default branch's commit before: reverting the approval goes back to it. */
  mergedOnto: string;
  fastForward: boolean;
  /** The default branch already contained the branch: nothing changed. */
  alreadyMerged: boolean;
}

/**
 * Merges a task branch into the default branch, as AutoCoder: a fast-forward when the default
 * branch has not moved, otherwise a merge commit. With `reapply` (the commit that reverted an
 * earlier approval of this branch), that revert is undone first, in the same move.
 *
 * The result is computed without a working tree (`git merge-tree --write-tree`, `commit-tree`);
 * then the checkout that has the default branch checked out, if any, is moved to it
 * (`read-tree -m -u`, which keeps unrelated local edits), and only then is the branch ref
 * moved, compare-and-swap on its old value. A checkout on another branch is not touched.
 *
 * Throws `MERGE_CONFLICT` (details: `files`) and changes nothing when the branches conflict,
 * have no common history, or local changes in the checkout would be overwritten. Before
 * returning, git confirms that the default branch contains the branch head.
 */
export async function mergeBranch(opts: {
  repoPath: string;
  branch: string;
  defaultBranch: string;
  message: string;
  reapply?: string | null;
}): Promise<MergeResult> {
  const { repoPath, branch, defaultBranch, message } = opts;
  await assertBranchNames(branch, defaultBranch);
  return withRepoLock(repoPath, async () => {
    const theirs = await branchCommit(repoPath, branch);
    if (!theirs) throw new AppError('NOT_FOUND', `Branch ${branch} not found`);
    const ours = await tipOf(repoPath, defaultBranch);
    let start = ours;
    if (opts.reapply) {
      start = await revertOnto(repoPath, ours, {
        undo: opts.reapply,
        backTo: await parentOf(repoPath, opts.reapply),
        message: `Reapply ${branch}\n\nUndoes ${opts.reapply}, which reverted it.`,
        what: `Reapplying ${branch} on ${defaultBranch}`,
      });
    }
    let result: string;
    let fastForward = false;
    if (await isAncestor(repoPath, theirs, start)) {
      if (start === ours) return { mergeCommit: ours, mergedOnto: ours, fastForward, alreadyMerged: true };
      result = start;
    } else if (await isAncestor(repoPath, start, theirs)) {
      result = theirs;
      fastForward = true;
    } else {
      const tree = await mergeTree(repoPath, start, theirs, `Merging ${branch} into ${defaultBranch}`);
      result = await commitTree(repoPath, tree, [start, theirs], message.trim() || `Merge ${branch}`);
    }
    await land(repoPath, defaultBranch, ours, result, `merge ${branch} (AutoCoder)`);
    if (!(await isAncestor(repoPath, theirs, `refs/heads/${defaultBranch}`))) {
      throw new AppError('INTERNAL_ERROR', `Git does not confirm that ${defaultBranch} contains ${branch}`);
    }
    return { mergeCommit: result, mergedOnto: ours, fastForward, alreadyMerged: false };
  });
}

/**
 * Undoes an approval with one revert commit on the default branch: the changes `mergedOnto..
 * mergeCommit` (a merge commit's first-parent diff, or a fast-forwarded range as a whole) are
 * taken back from the branch as it is now. Lands like a merge (no working tree touched unsafely,
 * compare-and-swap). `MERGE_CONFLICT` names the files and changes nothing; `revertCommit` is
 * null when the default branch no longer has those changes (nothing to revert).
 */
export async function revertMerge(opts: {
  repoPath: string;
  defaultBranch: string;
  mergeCommit: string;
  mergedOnto: string;
  message: string;
}): Promise<{ revertCommit: string | null }> {
  const { repoPath, defaultBranch, mergeCommit, mergedOnto } = opts;
  await assertBranchNames(defaultBranch);
  return withRepoLock(repoPath, async () => {
    const tip = await tipOf(repoPath, defaultBranch);
    if (!(await isAncestor(repoPath, mergeCommit, tip))) {
      throw new AppError(
        'INVALID_PIPELINE_STATE',
        `${defaultBranch} no longer contains the approved commit ${mergeCommit.slice(0, 12)}`,
      );
    }
    const result = await revertOnto(repoPath, tip, {
      undo: mergeCommit,
      backTo: mergedOnto,
      message: opts.message,
      what: `Reverting ${mergeCommit.slice(0, 12)} on ${defaultBranch}`,
    });
    if (result === tip) return { revertCommit: null };
    await land(repoPath, defaultBranch, tip, result, 'revert an approval (AutoCoder)');
    return { revertCommit: result };
  });
}

async function assertBranchNames(...names: string[]) {
  for (const name of names) {
    if (!(await isValidBranchName(name))) {
      throw new AppError('VALIDATION_ERROR', `Invalid branch name: ${JSON.stringify(name)}`);
    }
  }
}

async function tipOf(repoPath: string, branch: string): Promise<string> {
  const tip = await branchCommit(repoPath, branch);
  if (!tip) throw new AppError('NOT_FOUND', `Branch ${branch} not found`);
  return tip;
}

async function parentOf(repoPath: string, commit: string): Promise<string> {
  return (await gitText(['rev-parse', '--verify', `${commit}^1`], { cwd: repoPath })).trim();
}

async function commitTree(repoPath: string, tree: string, parents: string[], message: string) {
  const args = ['commit-tree', '--no-gpg-sign', tree, ...parents.flatMap((p) => ['-p', p]), '-m', message];
  return (await gitText(args, { cwd: repoPath })).trim();
}

/**
 * A commit on `tip` that takes back what `backTo..undo` brought, or `tip` itself when there is
 * nothing left to take back. It is a three-way merge whose base is `undo`: git 2.39's
 * merge-tree has no `--merge-base`, so a throwaway commit holding `backTo`'s tree on top of
 * `undo` makes `undo` the merge base it finds (`undo` is an ancestor of `tip`). Writes only objects.
 */
async function revertOnto(
  repoPath: string,
  tip: string,
  change: { undo: string; backTo: string; message: string; what: string },
): Promise<string> {
  const before = `${change.backTo}^{tree}`;
  const probe = await commitTree(repoPath, before, [change.undo], 'revert probe');
  const tree = await mergeTree(repoPath, tip, probe, change.what);
  const tipTree = (await gitText(['rev-parse', `${tip}^{tree}`], { cwd: repoPath })).trim();
  if (tree === tipTree) return tip;
  return commitTree(repoPath, tree, [tip], change.message);
}

/**
 * The files that would conflict if `theirs` were merged into `ours` (empty when it merges
 * cleanly or is already contained). Writes only objects; takes no lock.
 */
export async function conflictingFiles(repoPath: string, ours: string, theirs: string): Promise<string[]> {
  try {
    await mergeTree(repoPath, ours, theirs, 'Merging');
    return [];
  } catch (error) {
    if (error instanceof AppError && error.code === 'MERGE_CONFLICT') {
      return (error.details.files as string[] | undefined) ?? [];
    }
    throw error;
  }
}

/** The merged tree, or MERGE_CONFLICT naming the files. Writes only objects. */
async function mergeTree(repoPath: string, ours: string, theirs: string, what: string): Promise<string> {
  let result: Awaited<ReturnType<typeof git>>;
  try {
    result = await git(['merge-tree', '--write-tree', '--name-only', '--no-messages', '-z', ours, theirs], {
      cwd: repoPath,
      answerCodes: [1], // 1: conflicts, listed after the tree
    });
  } catch (error) {
    if (error instanceof GitError && /unrelated histories/i.test(error.stderr)) {
      throw new AppError('MERGE_CONFLICT', `${what}: the branches have no common history`, { files: [] });
    }
    throw error;
  }
  const [tree = '', ...rest] = result.stdout.toString('utf8').split('\0');
  if (result.exitCode === 0) return tree.trim();
  const files = [...new Set(rest.filter(Boolean))];
  throw new AppError(
    'MERGE_CONFLICT',
    files.length > 0 ? `${what} conflicts in: ${files.join(', ')}` : `${what} has conflicts`,
    { files },
  );
}

/**
 * Moves the default branch from `from` to `to`: first the checkout that has it checked out, if
 * any, then the ref, compare-and-swap. If the ref moved meanwhile, the checkout is put back.
 */
async function land(repoPath: string, defaultBranch: string, from: string, to: string, reason: string) {
  const checkout = (await listWorktrees(repoPath)).find(
    (entry) => entry.branch === defaultBranch && !entry.bare && !entry.prunable,
  );
  if (checkout) await moveCheckout(checkout.path, from, to, defaultBranch);
  try {
    await git(['update-ref', '-m', reason, `refs/heads/${defaultBranch}`, to, from], { cwd: repoPath });
  } catch (error) {
    // The ref moved under us (another process): put the checkout back where its HEAD still is.
    if (checkout) await git(['read-tree', '-m', '-u', to, from], { cwd: checkout.path });
    throw error;
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
