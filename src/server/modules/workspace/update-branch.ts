import { git, gitText } from '@/server/lib/git.js';
import { NO_DIFF_DRIVERS } from '@/server/lib/git-hardening.js';
import { readFilesForContext } from './context.js';
import { conflictingFiles } from './merge.js';
import { refuseNestedGit } from './nested-git.js';
import { branchCommit, isAncestor } from './refs.js';

/** The run's own checkout runs none of the repository's hooks. */
const NO_HOOKS = ['core.hooksPath=/dev/null'];

/**
 * Brings a task branch up to date in its worktree: merges the default branch into it without
 * committing (`git merge --no-ff --no-commit`), so the merge is completed by the next commit in
 * the worktree. Conflicting files are left with git's markers, for the coder to resolve.
 * Returns the default branch's commit that was merged in and the conflicting files.
 *
 * `git merge` looks inside populated gitlinks (a `git status` there, with the nested repository's
 * own config), so a worktree holding a nested repository is refused first (NESTED_REPOSITORY).
 */
export async function mergeDefaultIntoWorktree(opts: {
  repoPath: string;
  worktreePath: string;
  defaultBranch: string;
}): Promise<{ merged: string | null; conflicts: string[] }> {
  const merged = await branchCommit(opts.repoPath, opts.defaultBranch);
  if (!merged) return { merged: null, conflicts: [] };
  await refuseNestedGit(opts.worktreePath);
  const { exitCode } = await git(['merge', '--quiet', '--no-ff', '--no-commit', '--no-edit', merged], {
    cwd: opts.worktreePath,
    config: NO_HOOKS,
    answerCodes: [1], // 1: conflicts, left in the files
  });
  if (exitCode === 0) return { merged, conflicts: [] };
  const out = await gitText(['diff', ...NO_DIFF_DRIVERS, '--name-only', '--diff-filter=U', '-z'], {
    cwd: opts.worktreePath,
  });
  return { merged, conflicts: out.split('\0').filter(Boolean) };
}

const MARKER = /^(?:<{7}|>{7})(?: |$)/m;

/** The files among `paths` that still hold conflict markers (a file that is gone holds none). */
export async function filesWithConflictMarkers(worktreePath: string, paths: string[]): Promise<string[]> {
  const files = await readFilesForContext(worktreePath, paths, Number.MAX_SAFE_INTEGER);
  return files.filter((file) => MARKER.test(file.content)).map((file) => file.path);
}

/**
 * The files that conflict between a task branch and the default branch (empty when the branch
 * already contains the default branch, or merges with it cleanly). Writes only objects.
 */
export async function conflictsWithDefault(opts: {
  repoPath: string;
  branch: string;
  defaultBranch: string;
}): Promise<string[]> {
  const ours = await branchCommit(opts.repoPath, opts.branch);
  const theirs = await branchCommit(opts.repoPath, opts.defaultBranch);
  if (!ours || !theirs || (await isAncestor(opts.repoPath, theirs, ours))) return [];
  return conflictingFiles(opts.repoPath, ours, theirs);
}
