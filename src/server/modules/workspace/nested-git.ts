import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '@/server/lib/errors.js';

/**
 * Nested git repositories in a worktree: a `.git` (directory, gitfile or link) anywhere but the
 * worktree's own top-level one.
 *
 * Git run by the server enters a nested repository under a gitlink (`git add -A` and `git merge`
 * run `git status` inside it, whatever the settings say), and that git reads the nested
 * repository's own config and attributes: its filter drivers run as the server, outside the
 * sandbox (see lib/git-hardening.ts). So a worktree that holds one is never committed, and a check
 * that leaves one fails its step.
 */

/** Entries looked at before the walk stops: far more than a checkout with its dependencies installed. */
export const NESTED_GIT_MAX_ENTRIES = 1_000_000;
/** Nested repositories named before the walk stops: one is enough to refuse. */
const MAX_FOUND = 10;

export interface NestedGitScan {
  /** Each nested `.git` found, relative to the root with `/` separators (`sub/.git`), sorted. */
  found: string[];
  /**
   * Why the walk could not see the whole tree (too many entries, a directory it could not read),
   * or null when it did. A tree not seen whole may hold one: callers refuse it too.
   */
  incomplete: string | null;
}

/**
 * Walks `root` for nested `.git` entries without following symbolic links (a link is an entry,
 * never a way out of the tree) and without entering the top-level `.git`. Stops after `maxEntries`
 * entries or `MAX_FOUND` finds, saying so.
 */
export async function findNestedGit(
  root: string,
  options: { maxEntries?: number } = {},
): Promise<NestedGitScan> {
  const maxEntries = options.maxEntries ?? NESTED_GIT_MAX_ENTRIES;
  const found: string[] = [];
  const pending: string[] = [''];
  let seen = 0;
  const done = (incomplete: string | null): NestedGitScan => ({ found: found.sort(), incomplete });
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    let entries: Dirent[];
    try {
      entries = await readdir(path.join(root, dir), { withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Gone or replaced while the walk ran: nothing of it to see any more.
      if (code === 'ENOENT' || code === 'ENOTDIR') continue;
      // Unreadable (mode 0111): git could still reach a `.git` below it by the path in its index.
      return done(`could not read ${dir || '.'} (${code ?? 'error'})`);
    }
    for (const entry of entries) {
      seen += 1;
      if (seen > maxEntries) {
        return done(`the worktree has more than ${maxEntries} entries`);
      }
      const relative = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.name === '.git') {
        if (dir === '') continue;
        found.push(relative);
        if (found.length >= MAX_FOUND) return done(null);
      } else if (entry.isDirectory()) {
        pending.push(relative);
      }
    }
  }
  return done(null);
}

/**
 * The sentence that refuses a scan's tree, or null when it holds no nested repository:
 * `<who> a nested git repository at sub/.git; AutoCoder does not commit or run git on it`.
 * `who` says how it came there ("the check left", "the worktree holds").
 */
export function nestedGitProblem(scan: NestedGitScan, who: string): string | null {
  if (scan.found.length > 0) {
    const what =
      scan.found.length === 1
        ? `a nested git repository at ${scan.found[0]}`
        : `nested git repositories at ${scan.found.join(', ')}`;
    return `${who} ${what}; AutoCoder does not commit or run git on it`;
  }
  if (scan.incomplete) {
    return `AutoCoder could not make sure that the worktree holds no nested git repository (${scan.incomplete}), so it does not commit or run git on it`;
  }
  return null;
}

/**
 * Refuses (NESTED_REPOSITORY, naming the paths) a worktree that holds a nested repository, before
 * the server commits in it or runs a git that would enter one.
 */
export async function refuseNestedGit(worktreePath: string): Promise<void> {
  const scan = await findNestedGit(worktreePath);
  const problem = nestedGitProblem(scan, 'The worktree holds');
  if (problem) throw new AppError('NESTED_REPOSITORY', problem, { paths: scan.found });
}
