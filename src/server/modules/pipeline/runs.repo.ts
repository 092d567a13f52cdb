import { and, desc, eq, inArray, ne, sql } from 'drizzle-orm';
import type { PipelineStatus } from '@/contracts/pipeline.js';
import { ACTIVE_RUN_STATUSES } from '@/contracts/run-lifecycle.js';
import type { Db } from '@/server/db/client.js';
import { pipelineRuns, projects, tasks } from '@/server/db/schema.js';

export type RunRow = typeof pipelineRuns.$inferSelect;
export type RunInsert = typeof pipelineRuns.$inferInsert;
export type RunPatch = Partial<Omit<RunInsert, 'id' | 'taskId'>>;

/**
 * Creates a run. Its `earlierUsage` is what the task's runs so far spent, summed in the same
 * statement: every one of them has ended (a task has one active run, and only its latest can
 * spend), so the sum stays true for the run's whole life.
 */
export async function insertRun(db: Db, values: Omit<RunInsert, 'earlierUsage'>): Promise<RunRow> {
  // The target table is not in scope in VALUES: the subquery's pipeline_runs is the earlier runs.
  const earlierUsage = sql`(
    select jsonb_build_object(
      'inputTokens', coalesce(sum(${pipelineRuns.inputTokens}), 0),
      'outputTokens', coalesce(sum(${pipelineRuns.outputTokens}), 0),
      'costUsd', coalesce(sum(${pipelineRuns.costUsd}), 0)
    ) from ${pipelineRuns} where ${pipelineRuns.taskId} = ${values.taskId}
  )`;
  const [row] = await db
    .insert(pipelineRuns)
    .values({ ...values, earlierUsage })
    .returning();
  if (!row) throw new Error('insert returned no row');
  return row;
}

export async function findRun(db: Db, runId: string): Promise<RunRow | null> {
  const [row] = await db.select().from(pipelineRuns).where(eq(pipelineRuns.id, runId)).limit(1);
  return row ?? null;
}

export async function latestRunOfTask(db: Db, taskId: string): Promise<RunRow | null> {
  const [row] = await db
    .select()
    .from(pipelineRuns)
    .where(eq(pipelineRuns.taskId, taskId))
    .orderBy(desc(pipelineRuns.startedAt))
    .limit(1);
  return row ?? null;
}

export async function runsOfTask(db: Db, taskId: string, limit = 50): Promise<RunRow[]> {
  return db
    .select()
    .from(pipelineRuns)
    .where(eq(pipelineRuns.taskId, taskId))
    .orderBy(desc(pipelineRuns.startedAt))
    .limit(limit);
}

/**
 * Updates a run. With `onlyIf`, only while the run is in one of those statuses — so a
 * run that was cancelled meanwhile is never written back to running. Returns the row
 * or null when the condition did not hold.
 */
export async function updateRun(
  db: Db,
  runId: string,
  patch: RunPatch,
  onlyIf?: readonly PipelineStatus[],
): Promise<RunRow | null> {
  const where = onlyIf
    ? and(eq(pipelineRuns.id, runId), inArray(pipelineRuns.status, [...onlyIf]))
    : eq(pipelineRuns.id, runId);
  const [row] = await db
    .update(pipelineRuns)
    .set({ ...patch, updatedAt: new Date() })
    .where(where)
    .returning();
  return row ?? null;
}

/**
 * A user's active runs, for the limit of five per user (`ACTIVE_RUN_STATUSES`: a paused one resumes with one click)
 * other than `exceptRunId` (the run being retried keeps its own place).
 */
export async function countActiveForUser(db: Db, userId: string, exceptRunId?: string): Promise<number> {
  const [row] = await db
    .select({ value: sql<number>`count(*)::int` })
    .from(pipelineRuns)
    .innerJoin(tasks, eq(tasks.id, pipelineRuns.taskId))
    .innerJoin(projects, eq(projects.id, tasks.projectId))
    .where(
      and(
        eq(projects.userId, userId),
        inArray(pipelineRuns.status, [...ACTIVE_RUN_STATUSES]),
        exceptRunId ? ne(pipelineRuns.id, exceptRunId) : undefined,
      ),
    );
  return row?.value ?? 0;
}

/** Runs a previous process left running (it stopped mid-run). */
export async function runningRuns(db: Db): Promise<{ run: RunRow; projectId: string }[]> {
  const rows = await db
    .select({ run: pipelineRuns, projectId: tasks.projectId })
    .from(pipelineRuns)
    .innerJoin(tasks, eq(tasks.id, pipelineRuns.taskId))
    .where(eq(pipelineRuns.status, 'running'));
  return rows;
}

/** The project's `taskTokenBudget` (null: none, or the project is gone). */
export async function tokenBudgetOf(db: Db, projectId: string): Promise<number | null> {
  const [row] = await db
    .select({ budget: projects.taskTokenBudget })
    .from(projects)
    .where(eq(projects.id, projectId))
    .limit(1);
  return row?.budget ?? null;
}

/** A task with its project's repository, for the orchestrator. */
export async function taskWithProject(db: Db, taskId: string) {
  const [row] = await db
    .select({ task: tasks, project: projects })
    .from(tasks)
    .innerJoin(projects, eq(projects.id, tasks.projectId))
    .where(eq(tasks.id, taskId))
    .limit(1);
  return row ?? null;
}

export async function setTaskFields(db: Db, taskId: string, values: Partial<typeof tasks.$inferInsert>) {
  const [row] = await db
    .update(tasks)
    .set({ ...values, updatedAt: new Date() })
    .where(eq(tasks.id, taskId))
    .returning();
  return row ?? null;
}

/** A run with its task's project, or null when the run (or its task) is gone. */
export async function runWithProject(
  db: Db,
  runId: string,
): Promise<{ run: RunRow; projectId: string } | null> {
  const [row] = await db
    .select({ run: pipelineRuns, projectId: tasks.projectId })
    .from(pipelineRuns)
    .innerJoin(tasks, eq(tasks.id, pipelineRuns.taskId))
    .where(eq(pipelineRuns.id, runId))
    .limit(1);
  return row ?? null;
}
