import { and, eq, inArray, isNotNull, or } from 'drizzle-orm';
import { ACTIVE_RUN_STATUSES } from '@/contracts/run-lifecycle.js';
import type { Db } from '@/server/db/client.js';
import { pipelineRuns, tasks } from '@/server/db/schema.js';

/**
 * The project's task branches a push may only move forward (git-http's push policy): a run
 * works on its branch while it is active (running or paused), and the branch is what a person
 * reviews while its task is in Review. A force-push or a deletion there would leave the run's
 * commits, or the reviewed ones, only in a reflog.
 */
export async function protectedTaskBranches(db: Db, projectId: string): Promise<string[]> {
  const rows = await db
    .selectDistinct({ branch: pipelineRuns.branch })
    .from(pipelineRuns)
    .innerJoin(tasks, eq(tasks.id, pipelineRuns.taskId))
    .where(
      and(
        eq(tasks.projectId, projectId),
        isNotNull(pipelineRuns.branch),
        or(inArray(pipelineRuns.status, [...ACTIVE_RUN_STATUSES]), eq(tasks.status, 'review')),
      ),
    );
  return rows.flatMap((row) => (row.branch ? [row.branch] : []));
}
