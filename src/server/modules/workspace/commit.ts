import { GitError, git } from '@/server/lib/git.js';
import { readHeadCommit } from './refs.js';

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
  const text = message.trim() || 'AutoCoder changes';
  // With hooks skipped and a message that is never empty, `git commit` exits 1 exactly when
  // nothing is staged: one process fewer per step than asking `git diff --cached --quiet` first.
  const committed = await git(
    ['commit', '--quiet', '--no-verify', '--no-gpg-sign', '--cleanup=whitespace', '-m', text],
    { cwd: worktreePath, answerCodes: [1] },
  );
  if (committed.exitCode === 1) return null;
  // The new commit's id is in the ref git just wrote: read, not asked for (one process fewer per commit).
  const head = await readHeadCommit(worktreePath);
  if (!head) throw new GitError('git commit left no HEAD', null, '');
  return head;
}
