import { AppError } from '@/server/lib/errors.js';
import { GitError, gitText } from '@/server/lib/git.js';

/**
 * Refuses revisions and branch names that git would read as options. Callers pass names
 * the server built, but a leading `-` must never reach git's argument parser.
 */
export function assertRevision(rev: string, what: string): void {
  if (!rev || rev.startsWith('-') || rev.includes('\0')) {
    throw new AppError('VALIDATION_ERROR', `Invalid ${what}: ${JSON.stringify(rev)}`);
  }
}

/** The commit a branch points to, or null when there is no such branch. */
export async function branchCommit(dir: string, branch: string): Promise<string | null> {
  assertRevision(branch, 'branch');
  return resolveCommit(dir, `refs/heads/${branch}`);
}

/** The commit a revision names, or null when it names none. */
export async function resolveCommit(dir: string, rev: string): Promise<string | null> {
  assertRevision(rev, 'revision');
  try {
    return (await gitText(['rev-parse', '--verify', '--quiet', `${rev}^{commit}`], { cwd: dir })).trim();
  } catch (error) {
    if (error instanceof GitError && error.exitCode === 1) return null;
    throw error;
  }
}

/** True when `ancestor` is reachable from `descendant` (or is it). */
export async function isAncestor(dir: string, ancestor: string, descendant: string): Promise<boolean> {
  try {
    await gitText(['merge-base', '--is-ancestor', ancestor, descendant], { cwd: dir });
    return true;
  } catch (error) {
    // Exit code 1 is git's "no"; anything else is a real failure.
    if (error instanceof GitError && error.exitCode === 1) return false;
    throw error;
  }
}

/** Whether `branch` is a valid branch name by git's own rules. */
export async function isValidBranchName(branch: string): Promise<boolean> {
  if (!branch || branch.startsWith('-')) return false;
  try {
    await gitText(['check-ref-format', '--branch', branch]);
    return true;
  } catch (error) {
    if (error instanceof GitError && error.exitCode !== null) return false;
    throw error;
  }
}
