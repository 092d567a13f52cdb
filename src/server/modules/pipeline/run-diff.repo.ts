import { and, eq } from 'drizzle-orm';
import type { Db } from '@/server/db/client.js';
import { pipelineRuns, projects, tasks } from '@/server/db/schema.js';

/**
 * What a run's diff needs — its branch, base commit, last review and the project's repository —
 * in one statement, and only when the run belongs to `userId` (null otherwise: the caller answers 404).
 */
export async function ownedRunDiffSource(db: Db, userId: string, runId: string) {
  const [row] = await db
    .select({
      runId: pipelineRuns.id,
      branch: pipelineRuns.branch,
      baseCommit: pipelineRuns.baseCommit,
      reviewFindings: pipelineRuns.reviewFindings,
      repoPath: projects.repoPath,
    })
    .from(pipelineRuns)
    .innerJoin(tasks, eq(tasks.id, pipelineRuns.taskId))
    .innerJoin(projects, eq(projects.id, tasks.projectId))
    .where(and(eq(pipelineRuns.id, runId), eq(projects.userId, userId)))
    .limit(1);
  return row ?? null;
}
