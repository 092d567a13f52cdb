import { GitError } from '@/server/lib/git.js';
import type { ProjectRow } from '../projects/index.js';
import { isAncestor, readBranchHead, resolveCommit } from '../workspace/refs.js';

/** The head of `branch` in AutoCoder's repository, or null when it has no such branch. */
export function repoHeadOf(project: ProjectRow, branch: string): Promise<string | null> {
  return readBranchHead(project.repoPath, branch);
}

/** True when `commit` (full or abbreviated) is the head `head` or one of its ancestors. */
export async function headContains(
  project: ProjectRow,
  head: string | null,
  commit: string,
): Promise<boolean> {
  if (!head) return false;
  // The head itself (the agent pushed, then posts OPEN): no need to ask git.
  if (sameCommit(commit, head)) return true;
  let resolved: string | null;
  try {
    resolved = await resolveCommit(project.repoPath, commit);
  } catch (error) {
    // An abbreviation that matches several objects names no commit we could check.
    if (error instanceof GitError) return false;
    throw error;
  }
  return resolved !== null && isAncestor(project.repoPath, resolved, head);
}

/** An agent's head matches the repository's: equal, or an abbreviation of it. */
export const sameCommit = (agentHead: string, repoHead: string) =>
  agentHead.length >= 7 && repoHead.toLowerCase().startsWith(agentHead.toLowerCase());
