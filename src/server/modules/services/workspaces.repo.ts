import { and, eq, isNotNull, isNull } from 'drizzle-orm';
import { ulid } from 'ulid';
import type { Db } from '@/server/db/client.js';
import { pipelineRuns, projects, tasks, workspaces } from '@/server/db/schema.js';

/** A run of the project that recorded a worktree (it may have been removed since). */
export interface RunCheckout {
  runId: string;
  taskId: string;
  branch: string | null;
  worktreePath: string | null;
}

/** The project's runs that recorded a worktree, newest first. */
export async function runCheckouts(db: Db, projectId: string): Promise<RunCheckout[]> {
  return db
    .select({
      runId: pipelineRuns.id,
      taskId: pipelineRuns.taskId,
      branch: pipelineRuns.branch,
      worktreePath: pipelineRuns.worktreePath,
    })
    .from(pipelineRuns)
    .innerJoin(tasks, eq(tasks.id, pipelineRuns.taskId))
    .where(and(eq(tasks.projectId, projectId), isNotNull(pipelineRuns.worktreePath)))
    .orderBy(pipelineRuns.startedAt);
}

/**
 * Gives the project's checkout and the given runs' worktrees their ids (once: a second call
 * changes nothing) and answers the ids, keyed by run id ('' for the project's own).
 */
export async function ensureWorkspaceIds(
  db: Db,
  projectId: string,
  runIds: string[],
): Promise<Map<string, string>> {
  await db
    .insert(workspaces)
    .values([
      { id: ulid(), projectId, runId: null },
      ...runIds.map((runId) => ({ id: ulid(), projectId, runId })),
    ])
    .onConflictDoNothing();
  const rows = await db
    .select({ id: workspaces.id, runId: workspaces.runId })
    .from(workspaces)
    .where(
      and(eq(workspaces.projectId, projectId), runIds.length > 0 ? undefined : isNull(workspaces.runId)),
    );
  const wanted = new Set(runIds);
  const ids = new Map<string, string>();
  for (const row of rows) {
    if (row.runId === null) ids.set('', row.id);
    else if (wanted.has(row.runId)) ids.set(row.runId, row.id);
  }
  return ids;
}

/** A workspace with what locating its checkout needs. */
export interface WorkspaceRecord {
  id: string;
  projectId: string;
  userId: string;
  repoPath: string;
  defaultBranch: string;
  serviceEnv: Record<string, string>;
  /** The project's network allow-list for its sandboxes; null: the operator's. */
  sandboxAllowedHosts: string[] | null;
  setupCommand: string | null;
  setupTimeoutSeconds: number;
  runId: string | null;
  taskId: string | null;
  branch: string | null;
  worktreePath: string | null;
}

/** The workspace by id, with its project and run; null when there is none. */
export async function findWorkspaceRecord(db: Db, id: string): Promise<WorkspaceRecord | null> {
  const [row] = await db
    .select({
      id: workspaces.id,
      projectId: workspaces.projectId,
      userId: projects.userId,
      repoPath: projects.repoPath,
      defaultBranch: projects.defaultBranch,
      serviceEnv: projects.serviceEnv,
      sandboxAllowedHosts: projects.sandboxAllowedHosts,
      setupCommand: projects.setupCommand,
      setupTimeoutSeconds: projects.setupTimeoutSeconds,
      runId: workspaces.runId,
      taskId: pipelineRuns.taskId,
      branch: pipelineRuns.branch,
      worktreePath: pipelineRuns.worktreePath,
    })
    .from(workspaces)
    .innerJoin(projects, eq(projects.id, workspaces.projectId))
    .leftJoin(pipelineRuns, eq(pipelineRuns.id, workspaces.runId))
    .where(eq(workspaces.id, id))
    .limit(1);
  return row ?? null;
}
