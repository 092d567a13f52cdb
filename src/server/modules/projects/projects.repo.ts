import { and, asc, eq, inArray } from 'drizzle-orm';
import { ACTIVE_RUN_STATUSES } from '@/contracts/run-lifecycle.js';
import type { Db } from '@/server/db/client.js';
import { pipelineRuns, projects, tasks } from '@/server/db/schema.js';

export type ProjectRow = typeof projects.$inferSelect;

export async function listProjectRows(db: Db, userId: string): Promise<ProjectRow[]> {
  return db
    .select()
    .from(projects)
    .where(eq(projects.userId, userId))
    .orderBy(asc(projects.createdAt), asc(projects.id));
}

/** The project when it exists and belongs to the user; null otherwise (the caller answers 404 either way). */
export async function findOwnedProject(
  db: Db,
  userId: string,
  projectId: string,
): Promise<ProjectRow | null> {
  const [row] = await db
    .select()
    .from(projects)
    .where(and(eq(projects.id, projectId), eq(projects.userId, userId)))
    .limit(1);
  return row ?? null;
}

/** The project's default branch, or null when there is no such project. */
export async function defaultBranchOf(db: Db, projectId: string): Promise<string | null> {
  const [row] = await db
    .select({ defaultBranch: projects.defaultBranch })
    .from(projects)
    .where(eq(projects.id, projectId))
    .limit(1);
  return row?.defaultBranch ?? null;
}

export async function insertProject(db: Db, values: typeof projects.$inferInsert): Promise<ProjectRow> {
  const [row] = await db.insert(projects).values(values).returning();
  if (!row) throw new Error('insert returned no row');
  return row;
}

export type ProjectSettings = Partial<
  Pick<
    ProjectRow,
    | 'name'
    | 'checkCommand'
    | 'checkTimeoutSeconds'
    | 'setupCommand'
    | 'setupTimeoutSeconds'
    | 'taskTokenBudget'
    | 'serviceEnv'
    | 'sandboxAllowedHosts'
    | 'coderEngine'
    | 'maxToolCalls'
  >
>;

export async function updateProjectSettings(
  db: Db,
  projectId: string,
  settings: ProjectSettings,
  now: Date,
): Promise<ProjectRow> {
  const [row] = await db
    .update(projects)
    .set({ ...settings, updatedAt: now })
    .where(eq(projects.id, projectId))
    .returning();
  if (!row) throw new Error('update returned no row');
  return row;
}

/**
 * Deletes a project unless it is the user's last one, in one transaction so two
 * concurrent deletes cannot both pass the check. Returns false when it was the last.
 */
export async function deleteProjectUnlessLast(db: Db, userId: string, projectId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    // Lock the user's projects so the count stays true until commit.
    const owned = await tx
      .select({ id: projects.id })
      .from(projects)
      .where(eq(projects.userId, userId))
      .for('update');
    if (owned.length <= 1) return false;
    await tx.delete(projects).where(and(eq(projects.id, projectId), eq(projects.userId, userId)));
    return true;
  });
}

/** True while any run of the project's tasks is active (`ACTIVE_RUN_STATUSES`). */
export async function hasActiveRunInProject(db: Db, projectId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: pipelineRuns.id })
    .from(pipelineRuns)
    .innerJoin(tasks, eq(tasks.id, pipelineRuns.taskId))
    .where(and(eq(tasks.projectId, projectId), inArray(pipelineRuns.status, [...ACTIVE_RUN_STATUSES])))
    .limit(1);
  return Boolean(row);
}
