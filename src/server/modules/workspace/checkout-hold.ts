import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { GitError, git, gitText } from '@/server/lib/git.js';
import { branchCommit, isPlainBranchName, readBranchHead, readDetachedHead } from './refs.js';
import { withRepoLock } from './repo-lock.js';

/*
 * A project's own checkout, held at its commit while services run in it: a merge or a push then
 * moves the default branch but not the files under a running dev server; they follow when the
 * last service stops.
 *
 * Holding detaches the checkout's HEAD at the commit it is on (`update-ref --no-deref`: no file
 * changes), which takes the branch out of the checkout — merges (`merge.ts`) then move only the
 * branch, and a push no longer meets a checked-out branch. Releasing moves the files from the
 * held commit to the branch's head as a branch switch does (`read-tree -m -u`: local edits to
 * other files kept) and puts HEAD back on the branch. A release that would overwrite local edits
 * keeps the hold and says so; the next release tries again. The branch a hold came from is kept in
 * the repository's config (`autocoder.heldBranch`), so that a hold left by a server that stopped
 * without releasing it is released at the next start (`releaseLeftHolds`).
 */

const MARK = 'autocoder.heldBranch';

const heldBranchOf = async (repoPath: string) =>
  (await gitText(['config', '--local', '--get', MARK], { cwd: repoPath }).catch(() => '')).trim();

const unmark = (repoPath: string) =>
  git(['config', '--local', '--unset-all', MARK], { cwd: repoPath }).catch(() => undefined);

async function symbolicHead(repoPath: string): Promise<string | null> {
  const ref = (await gitText(['symbolic-ref', '-q', 'HEAD'], { cwd: repoPath }).catch(() => '')).trim();
  return ref || null;
}

/**
 * Holds the checkout at its commit. Nothing happens when its HEAD is not on `branch` (held
 * already, or moved to another branch by hand) or when the branch has no commit yet.
 */
export async function holdCheckout(repoPath: string, branch: string): Promise<void> {
  if (!isPlainBranchName(branch)) return;
  await withRepoLock(repoPath, async () => {
    if ((await symbolicHead(repoPath)) !== `refs/heads/${branch}`) return;
    const commit = await branchCommit(repoPath, branch);
    if (!commit) return;
    await git(['config', '--local', MARK, branch], { cwd: repoPath });
    await git(['update-ref', '--no-deref', '-m', 'hold for running services (AutoCoder)', 'HEAD', commit], {
      cwd: repoPath,
    });
  });
}

/**
 * The commit a held checkout's files are at, when its branch has moved on meanwhile; null when
 * it is on its branch or at its head. Read from `.git/HEAD` and the ref files: the services view
 * asks on every poll.
 */
export async function heldBehind(repoPath: string, branch: string): Promise<string | null> {
  const head = await readDetachedHead(repoPath);
  if (head === null || !isPlainBranchName(branch)) return null;
  const tip = await readBranchHead(repoPath, branch).catch(() => null);
  return tip !== null && tip !== head ? head : null;
}

export type ReleaseOutcome =
  /** HEAD is on the branch again, with its files. */
  | { released: true; from: string; to: string }
  /** Not held by AutoCoder. */
  | { released: false; reason: 'not-held' }
  /** Still held: moving the files would overwrite local edits (git's message). */
  | { released: false; reason: 'local-edits'; message: string };

/** Releases a hold: the checkout moves to its branch's head and HEAD goes back on the branch. */
export function releaseCheckout(repoPath: string): Promise<ReleaseOutcome> {
  return withRepoLock(repoPath, async (): Promise<ReleaseOutcome> => {
    const branch = await heldBranchOf(repoPath);
    if (!branch || !isPlainBranchName(branch)) return { released: false, reason: 'not-held' };
    const head = await symbolicHead(repoPath);
    if (head !== null) {
      // HEAD was put on a branch meanwhile (by hand): the hold is over.
      await unmark(repoPath);
      return { released: false, reason: 'not-held' };
    }
    const from = (await gitText(['rev-parse', '--verify', 'HEAD'], { cwd: repoPath })).trim();
    const to = (await branchCommit(repoPath, branch)) ?? from;
    if (to !== from) {
      // Stat-only differences must not count as local edits.
      await git(['update-index', '-q', '--refresh'], { cwd: repoPath }).catch((error: unknown) => {
        if (!(error instanceof GitError && error.exitCode === 1)) throw error;
      });
      try {
        await git(['read-tree', '-m', '-u', from, to], { cwd: repoPath });
      } catch (error) {
        if (!(error instanceof GitError)) throw error;
        return { released: false, reason: 'local-edits', message: error.stderr.trim() };
      }
    }
    await git(['symbolic-ref', '-m', 'services stopped (AutoCoder)', 'HEAD', `refs/heads/${branch}`], {
      cwd: repoPath,
    });
    await unmark(repoPath);
    return { released: true, from, to };
  });
}

/**
 * Releases the holds left in `<reposDir>/<project>/` by a server that stopped without releasing
 * them (no service runs at start-up); answers the checkouts that stay held (local edits).
 */
export async function releaseLeftHolds(reposDir: string): Promise<string[]> {
  const entries = await readdir(reposDir, { withFileTypes: true }).catch(() => []);
  const kept: string[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const repoPath = path.join(reposDir, entry.name);
    // Only a detached HEAD can be a hold: one file read per project, git only for those.
    if ((await readDetachedHead(repoPath)) === null) continue;
    const outcome = await releaseCheckout(repoPath);
    if (!outcome.released && outcome.reason === 'local-edits') kept.push(repoPath);
  }
  return kept;
}
