import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { git, gitText } from '@/server/lib/git.js';

const OBJECT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
const REF = /^ref: (refs\/[^\s]+)$/;

/**
 * The commit HEAD names, read from the repository's files as git wrote them a moment ago: the
 * worktree's `.git` file, its HEAD, and the branch's loose ref in the common directory (a commit
 * always writes one). Null when anything is not as expected (a packed or reftable ref, a
 * symbolic ref chain): the caller asks git instead.
 */
async function headFromFiles(worktreePath: string): Promise<string | null> {
  try {
    const dotGit = path.join(worktreePath, '.git');
    const link = await readFile(dotGit, 'utf8').catch(() => null);
    const gitDir = link?.startsWith('gitdir: ') ? path.resolve(worktreePath, link.slice(8).trim()) : dotGit;
    const head = (await readFile(path.join(gitDir, 'HEAD'), 'utf8')).trim();
    if (OBJECT_ID.test(head)) return head;
    const ref = REF.exec(head)?.[1];
    if (!ref || ref.split('/').includes('..')) return null;
    const common = await readFile(path.join(gitDir, 'commondir'), 'utf8').then(
      (dir) => path.resolve(gitDir, dir.trim()),
      () => gitDir,
    );
    const id = (await readFile(path.join(common, ref), 'utf8')).trim();
    return OBJECT_ID.test(id) ? id : null;
  } catch {
    return null;
  }
}

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
  return (
    (await headFromFiles(worktreePath)) ??
    (await gitText(['rev-parse', 'HEAD'], { cwd: worktreePath })).trim()
  );
}
