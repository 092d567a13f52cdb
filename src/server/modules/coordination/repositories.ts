import type { Db } from '@/server/db/client.js';
import { AppError } from '@/server/lib/errors.js';
import { GitError } from '@/server/lib/git.js';
import { findOwnedProject, listProjectRows, type ProjectRow } from '../projects/projects.repo.js';
import { branchCommit, isAncestor, resolveCommit } from '../workspace/refs.js';
import { normaliseRepoUrl, ownProjectIdOf } from './repo-url.js';

const repoNotFound = () =>
  new AppError('REPO_NOT_FOUND', 'No repository of yours has this repo_url: use the project’s clone URL');

/**
 * The user's project that `repoUrl` names: AutoCoder's own remote (`…/git/<projectId>.git`) or the
 * project's recorded upstream, compared normalised. When several projects were imported from the
 * same upstream, the oldest is meant (the clone URL names one exactly). Unknown, or another user's:
 * 404 REPO_NOT_FOUND.
 */
export async function findProjectByRepoUrl(db: Db, userId: string, repoUrl: string): Promise<ProjectRow> {
  const wanted = normaliseRepoUrl(repoUrl);
  if (!wanted) throw repoNotFound();
  const ownId = ownProjectIdOf(wanted);
  if (ownId) {
    const project = await findOwnedProject(db, userId, ownId);
    if (project) return project;
  }
  const rows = await listProjectRows(db, userId);
  const project = rows.find((row) => row.repoUrl !== null && normaliseRepoUrl(row.repoUrl) === wanted);
  if (!project) throw repoNotFound();
  return project;
}

/** The head of `branch` in AutoCoder's repository, or null when it has no such branch. */
export function repoHeadOf(project: ProjectRow, branch: string): Promise<string | null> {
  return branchCommit(project.repoPath, branch);
}

/** True when `commit` (full or abbreviated) is the head `head` or one of its ancestors. */
export async function headContains(
  project: ProjectRow,
  head: string | null,
  commit: string,
): Promise<boolean> {
  if (!head) return false;
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
