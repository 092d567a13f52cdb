import type { ReviewComment, ReviewCommentInput } from '@/contracts/review-comments.js';
import { AppError } from '@/server/lib/errors.js';
import { safeRelativePath } from '../workspace/confine.js';
import {
  commentsOfRun,
  deleteComment,
  insertComment,
  type ReviewCommentRow,
} from './review-comments.repo.js';
import { ownedRun, type RunQueryDeps } from './run-queries.js';

/**
 * A person's comments on lines of a run's diff. They stay open until the next request for
 * changes sends them to the coder (with or without feedback) and marks them addressed.
 */

export function toReviewComment(row: ReviewCommentRow): ReviewComment {
  return {
    id: row.id,
    path: row.path,
    line: row.line,
    body: row.body,
    createdAt: row.createdAt.toISOString(),
    addressedAt: row.addressedAt?.toISOString() ?? null,
  };
}

/** Adds a comment to the user's run. The path must be safe and, once the run has changed files, one of them. */
export async function addComment(
  deps: RunQueryDeps,
  userId: string,
  runId: string,
  input: ReviewCommentInput,
): Promise<ReviewComment> {
  const run = await ownedRun(deps, userId, runId);
  const path = safeRelativePath(input.path);
  if (!path)
    throw new AppError('INVALID_PATH', `Not a path inside the repository: ${JSON.stringify(input.path)}`);
  const changed = (run.fileChanges?.files ?? []).map((file) => safeRelativePath(file.filePath));
  if (changed.length > 0 && !changed.includes(path)) {
    throw new AppError('INVALID_PATH', `${path} is not one of the files this run changed`);
  }
  return toReviewComment(
    await insertComment(deps.db, { runId: run.id, path, line: input.line, body: input.body }),
  );
}

export async function listComments(
  deps: RunQueryDeps,
  userId: string,
  runId: string,
): Promise<ReviewComment[]> {
  const run = await ownedRun(deps, userId, runId);
  return (await commentsOfRun(deps.db, run.id)).map(toReviewComment);
}

export async function removeComment(
  deps: RunQueryDeps,
  userId: string,
  runId: string,
  commentId: string,
): Promise<void> {
  const run = await ownedRun(deps, userId, runId);
  if (!(await deleteComment(deps.db, run.id, commentId)))
    throw new AppError('NOT_FOUND', 'Comment not found');
}
