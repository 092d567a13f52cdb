import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '@/server/db/client.js';
import { pipelineRuns, runLocks, tasks } from '@/server/db/schema.js';

export type RunLockRow = typeof runLocks.$inferSelect;

/** Records locks each with its own message and time, in one statement. */
export async function saveRunLockRows(
  db: Db,
  rows: readonly {
    runId: string;
    branch: string;
    holderName: string;
    message: string;
    takenAt: number;
    path: string;
  }[],
): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insert(runLocks)
    .values([...rows])
    .onConflictDoUpdate({
      target: [runLocks.runId, runLocks.path],
      set: {
        branch: sql`excluded.branch`,
        holderName: sql`excluded.holder_name`,
        message: sql`excluded.message`,
        takenAt: sql`excluded.taken_at`,
      },
    });
}

/** Forgets every lock of the run (released); answers whether it had any recorded. */
export async function deleteRunLocks(db: Db, runId: string): Promise<number> {
  const rows = await db.delete(runLocks).where(eq(runLocks.runId, runId)).returning({ path: runLocks.path });
  return rows.length;
}

/** Forgets the run's locks on `paths` only. */
export async function deleteRunLockPaths(db: Db, runId: string, paths: readonly string[]): Promise<void> {
  if (paths.length === 0) return;
  await db.delete(runLocks).where(and(eq(runLocks.runId, runId), inArray(runLocks.path, [...paths])));
}

/** The paths of the run still recorded. */
export async function runLockPaths(db: Db, runId: string): Promise<string[]> {
  const rows = await db.select({ path: runLocks.path }).from(runLocks).where(eq(runLocks.runId, runId));
  return rows.map((r) => r.path);
}

/** The runs of a task that have locks recorded. */
export async function runsHoldingOfTask(db: Db, taskId: string): Promise<string[]> {
  const rows = await db
    .selectDistinct({ runId: runLocks.runId })
    .from(runLocks)
    .innerJoin(pipelineRuns, eq(pipelineRuns.id, runLocks.runId))
    .where(eq(pipelineRuns.taskId, taskId));
  return rows.map((r) => r.runId);
}

/** Every recorded lock, with its run's state, task and project (start-up). */
export function recordedRunLocks(db: Db) {
  return db
    .select({
      lock: runLocks,
      taskId: pipelineRuns.taskId,
      projectId: tasks.projectId,
      runStatus: pipelineRuns.status,
      taskStatus: tasks.status,
    })
    .from(runLocks)
    .innerJoin(pipelineRuns, eq(pipelineRuns.id, runLocks.runId))
    .innerJoin(tasks, eq(tasks.id, pipelineRuns.taskId));
}
