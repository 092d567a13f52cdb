import { and, asc, eq, ilike, inArray, ne, or, type SQL, sql } from 'drizzle-orm';
import type { TaskStatus } from '../../../contracts/tasks.js';
import type { Db } from '../../db/client.js';
import { pipelineRuns, projects, tasks } from '../../db/schema.js';

export type TaskRow = typeof tasks.$inferSelect;

const STATUS_ORDER = sql`array_position(array['backlog','spec','building','review','done']::text[], ${tasks.status})`;

const escapeLike = (value: string) => value.replace(/[\\%_]/g, (ch) => `\\${ch}`);

export async function listTaskRows(
  db: Db,
  filter: {
    projectId: string;
    status?: string | undefined;
    category?: string | undefined;
    q?: string | undefined;
  },
): Promise<TaskRow[]> {
  const conditions: SQL[] = [eq(tasks.projectId, filter.projectId)];
  if (filter.status) conditions.push(eq(tasks.status, filter.status));
  if (filter.category) conditions.push(eq(tasks.category, filter.category));
  if (filter.q) {
    const pattern = `%${escapeLike(filter.q)}%`;
    const match = or(ilike(tasks.title, pattern), ilike(tasks.description, pattern));
    if (match) conditions.push(match);
  }
  return db
    .select()
    .from(tasks)
    .where(and(...conditions))
    .orderBy(STATUS_ORDER, asc(tasks.position), asc(tasks.createdAt));
}

/** The task when it exists and its project belongs to the user. */
export async function findOwnedTask(db: Db, userId: string, taskId: string): Promise<TaskRow | null> {
  const [row] = await db
    .select({ task: tasks })
    .from(tasks)
    .innerJoin(projects, eq(projects.id, tasks.projectId))
    .where(and(eq(tasks.id, taskId), eq(projects.userId, userId)))
    .limit(1);
  return row?.task ?? null;
}

/** Positions of a column in order, leaving out one task (the one being moved). */
export async function columnPositions(db: Db, projectId: string, status: string, exceptTaskId?: string) {
  const conditions: SQL[] = [eq(tasks.projectId, projectId), eq(tasks.status, status)];
  if (exceptTaskId) conditions.push(ne(tasks.id, exceptTaskId));
  return db
    .select({ id: tasks.id, position: tasks.position })
    .from(tasks)
    .where(and(...conditions))
    .orderBy(asc(tasks.position), asc(tasks.createdAt));
}

export async function maxPosition(db: Db, projectId: string, status: string): Promise<number | null> {
  const [row] = await db
    .select({ value: sql<number | null>`max(${tasks.position})` })
    .from(tasks)
    .where(and(eq(tasks.projectId, projectId), eq(tasks.status, status)));
  return row?.value ?? null;
}

export async function insertTask(db: Db, values: typeof tasks.$inferInsert): Promise<TaskRow> {
  const [row] = await db.insert(tasks).values(values).returning();
  if (!row) throw new Error('insert returned no row');
  return row;
}

export async function updateTaskRow(
  db: Db,
  taskId: string,
  values: Partial<typeof tasks.$inferInsert>,
): Promise<TaskRow | null> {
  const [row] = await db.update(tasks).set(values).where(eq(tasks.id, taskId)).returning();
  return row ?? null;
}

/** Rewrites a column's positions evenly (used when fractional positions run out of room). */
export async function renumberColumn(db: Db, ordered: { id: string }[], step: number): Promise<void> {
  await db.transaction(async (tx) => {
    for (const [index, task] of ordered.entries()) {
      await tx
        .update(tasks)
        .set({ position: (index + 1) * step })
        .where(eq(tasks.id, task.id));
    }
  });
}

export async function deleteTaskRow(db: Db, taskId: string): Promise<void> {
  await db.delete(tasks).where(eq(tasks.id, taskId));
}

export type { TaskStatus };

/** Serialises order changes within a project until the transaction ends. */
export async function lockProjectOrder(db: Db, projectId: string): Promise<void> {
  await db.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`task-order:${projectId}`}, 0))`);
}

export async function findTaskForUpdate(db: Db, taskId: string): Promise<TaskRow | null> {
  const [row] = await db.select().from(tasks).where(eq(tasks.id, taskId)).for('update').limit(1);
  return row ?? null;
}

/** True while a run of the task is running or paused. */
export async function hasActiveRun(db: Db, taskId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: pipelineRuns.id })
    .from(pipelineRuns)
    .where(and(eq(pipelineRuns.taskId, taskId), inArray(pipelineRuns.status, ['running', 'paused'])))
    .limit(1);
  return Boolean(row);
}
