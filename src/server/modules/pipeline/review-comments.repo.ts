import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
import type { Db } from '@/server/db/client.js';
import { reviewComments } from '@/server/db/schema.js';

export type ReviewCommentRow = typeof reviewComments.$inferSelect;

export async function insertComment(
  db: Db,
  values: { runId: string; path: string; line: number; body: string },
): Promise<ReviewCommentRow> {
  const [row] = await db.insert(reviewComments).values(values).returning();
  if (!row) throw new Error('insert returned no row');
  return row;
}

/** The run's comments, oldest first; only the open ones with `open`. */
export function commentsOfRun(db: Db, runId: string, open = false): Promise<ReviewCommentRow[]> {
  const where = open
    ? and(eq(reviewComments.runId, runId), isNull(reviewComments.addressedAt))
    : eq(reviewComments.runId, runId);
  return db
    .select()
    .from(reviewComments)
    .where(where)
    .orderBy(asc(reviewComments.createdAt), asc(reviewComments.id));
}

/** Deletes a comment of the run; false when it has no such comment. */
export async function deleteComment(db: Db, runId: string, commentId: string): Promise<boolean> {
  const rows = await db
    .delete(reviewComments)
    .where(and(eq(reviewComments.runId, runId), eq(reviewComments.id, commentId)))
    .returning({ id: reviewComments.id });
  return rows.length > 0;
}

/** Marks these open comments of the run addressed (sent to the coder). */
export async function markAddressed(db: Db, runId: string, ids: string[], at: Date): Promise<void> {
  if (ids.length === 0) return;
  await db
    .update(reviewComments)
    .set({ addressedAt: at })
    .where(
      and(
        eq(reviewComments.runId, runId),
        inArray(reviewComments.id, ids),
        isNull(reviewComments.addressedAt),
      ),
    );
}
