import { inArray } from 'drizzle-orm';
import type { ProjectLocksResponse } from '@/contracts/coordination.js';
import type { Db } from '@/server/db/client.js';
import { pipelineRuns } from '@/server/db/schema.js';
import { AppError } from '@/server/lib/errors.js';
import { findOwnedProject } from '../projects/index.js';
import type { LockStore } from './lock-store.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ProjectLocksDeps {
  db: Db;
  now: () => number;
  coordination: { locks: LockStore };
}

/**
 * The live locks on a project's default branch (the board's lock badges and activity feed start from
 * them, then follow the project's stream). Locks held by the project's pipeline runs name their task.
 */
export async function projectLocks(
  deps: ProjectLocksDeps,
  userId: string,
  projectId: string,
): Promise<ProjectLocksResponse> {
  const project = await findOwnedProject(deps.db, userId, projectId);
  if (!project) throw new AppError('PROJECT_NOT_FOUND', 'Project not found');
  const branch = project.defaultBranch;
  const live = await deps.coordination.locks.list({ projectId, branch }, deps.now());
  // Runs are named by their uuid; other holders (tokens, users) are never a run.
  const holderIds = [...new Set(live.map((l) => l.holder.id))].filter((id) => UUID.test(id));
  const runs =
    holderIds.length === 0
      ? []
      : await deps.db
          .select({ id: pipelineRuns.id, taskId: pipelineRuns.taskId })
          .from(pipelineRuns)
          .where(inArray(pipelineRuns.id, holderIds));
  const taskOf = new Map(runs.map((r) => [r.id, r.taskId]));
  return {
    branch,
    locks: live.map((lock) => {
      const taskId = taskOf.get(lock.holder.id);
      return {
        path: lock.path,
        status: lock.status,
        agent: { ...lock.holder },
        message: lock.message,
        timestamp: lock.timestamp,
        ...(taskId ? { taskId } : {}),
      };
    }),
  };
}
