import { GitError, git, gitText } from '@/server/lib/git.js';
import { refuseNestedGit } from './nested-git.js';
import { readHeadCommit } from './refs.js';

/**
 * Stages everything in the worktree (`git add -A`, honouring .gitignore) and commits it as
 * AutoCoder. Returns the new HEAD, or null when nothing changed — no empty commits.
 *
 * A worktree that holds a nested git repository is refused (NESTED_REPOSITORY, naming it): a
 * check or a service left it, and nothing of it is committed. Gitlinks (submodules) are left out
 * of the `add` as well: `git add` looks inside a populated gitlink with a `git status` that runs
 * the nested repository's own filter drivers, and a service could make one after the scan.
 * AutoCoder never moves a submodule.
 *
 * The repository's hooks are skipped (`--no-verify`: a pre-commit hook that needs the user's
 * toolchain must not fail a run) and so is signing (AutoCoder has no key). Lines starting
 * with `#` stay in the message.
 */
export async function commitAll(
  worktreePath: string,
  message: string,
  /** Top-level entries never committed: what the worktree's setup made (`node_modules`). */
  exclude: readonly string[] = [],
): Promise<string | null> {
  await refuseNestedGit(worktreePath);
  await stageAll(worktreePath, exclude);
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

/**
 * `git add -A` with the index's gitlinks left out, so that git never looks inside a nested
 * repository under one (`commitAll` refuses a worktree that holds one before this).
 */
export async function stageAll(worktreePath: string, exclude: readonly string[] = []): Promise<void> {
  const outside = [...(await gitlinks(worktreePath)), ...exclude].map((link) => `:(exclude,literal)${link}`);
  await git(['add', '-A', '--', '.', ...outside], { cwd: worktreePath });
}

/** The index's gitlinks (mode 160000): read from the index only, no git enters them. */
async function gitlinks(worktreePath: string): Promise<string[]> {
  const out = await gitText(['ls-files', '--stage', '-z'], { cwd: worktreePath });
  const links: string[] = [];
  for (const entry of out.split('\0')) {
    if (!entry.startsWith('160000 ')) continue;
    const tab = entry.indexOf('\t');
    if (tab !== -1) links.push(entry.slice(tab + 1));
  }
  return links;
}

/**
 * Stages everything as `commitAll` would and returns the paths the commit would change (renames
 * as their two paths): what a step must hold WRITING locks on before it commits.
 */
export async function stagedChanges(
  worktreePath: string,
  exclude: readonly string[] = [],
): Promise<string[]> {
  await refuseNestedGit(worktreePath);
  await stageAll(worktreePath, exclude);
  const out = await gitText(['diff', '--cached', '--name-only', '--no-renames', '-z'], { cwd: worktreePath });
  return out.split('\0').filter(Boolean);
}
