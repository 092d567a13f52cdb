import { z } from 'zod';
import { cleanString } from './common.js';

/** Longest comment body, in characters. */
export const REVIEW_COMMENT_MAX_CHARS = 4000;

/** `POST /api/pipeline/runs/:runId/comments`: a comment on a line of one of the run's files. */
export const reviewCommentInputSchema = z.strictObject({
  /** Repository-relative path, as the diff shows it. */
  path: cleanString().min(1, 'Path is required').max(1000),
  /** 1-based line of the file's new version. */
  line: z.number().int().min(1).max(10_000_000),
  body: cleanString()
    .min(1, 'Comment is required')
    .max(
      REVIEW_COMMENT_MAX_CHARS,
      `Comment must be at most ${REVIEW_COMMENT_MAX_CHARS.toLocaleString('en')} characters`,
    ),
});
export type ReviewCommentInput = z.infer<typeof reviewCommentInputSchema>;

export interface ReviewComment {
  id: string;
  path: string;
  line: number;
  body: string;
  createdAt: string;
  /** When a request for changes sent it to the coder; null while open. */
  addressedAt: string | null;
}
