import { GitError, git, gitText } from '@/server/lib/git.js';

/**
 * Stages everything in the worktree (`git add -A`, honouring .gitignore) and commits it as
 * AutoCoder. Returns the new HEAD, or null when nothing changed — no empty commits.
 *
 * The repository's hooks are skipped (`--no-verify`: a pre-commit hook that needs the user's
 * toolchain must not fail a run) and so is signing (AutoCoder has no key). Lines starting
 * with `#` stay in the message.
 */
export async function commitAll(worktreePath: string, message: string): Promise<string | null> {
  await git(['add', '-A'], { cwd: worktreePath });
  if (!(await hasStagedChanges(worktreePath))) return null;
  const text = message.trim() || 'AutoCoder changes';
  await git(['commit', '--quiet', '--no-verify', '--no-gpg-sign', '--cleanup=whitespace', '-m', text], {
    cwd: worktreePath,
  });
  return (await gitText(['rev-parse', 'HEAD'], { cwd: worktreePath })).trim();
}

async function hasStagedChanges(worktreePath: string): Promise<boolean> {
  try {
    await git(['diff', '--cached', '--quiet', '--no-ext-diff'], { cwd: worktreePath });
    return false;
  } catch (error) {
    // `--quiet` exits 1 exactly when there are differences.
    if (error instanceof GitError && error.exitCode === 1) return true;
    throw error;
  }
}
