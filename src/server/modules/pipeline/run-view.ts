import type { PipelineRunDetail, PipelineRunSummary } from '@/contracts/pipeline.js';
import type { RunRow } from './runs.repo.js';

export function toRunSummary(row: RunRow): PipelineRunSummary {
  const total = (row.subtasks ?? []).length;
  const coding = row.phase === 'coding' && total > 0;
  return {
    id: row.id,
    taskId: row.taskId,
    phase: row.phase,
    status: row.status,
    iteration: row.iteration,
    provider: row.provider,
    simulated: row.provider === 'simulator',
    branch: row.branch,
    baseCommit: row.baseCommit,
    headCommit: row.headCommit,
    mergeCommit: row.mergeCommit,
    revertCommit: row.revertCommit,
    subtask: coding ? { index: Math.min(total, (row.cursor?.subtaskIndex ?? 0) + 1), total } : null,
    roundStart: row.cursor?.roundStart ?? 0,
    usage: { inputTokens: row.inputTokens, outputTokens: row.outputTokens, costUsd: row.costUsd },
    earlierRunsUsage: row.earlierUsage,
    reviewScore: row.reviewFindings?.score ?? null,
    errorDetails: row.errorDetails ?? null,
    startedAt: row.startedAt.toISOString(),
    completedAt: row.completedAt?.toISOString() ?? null,
  };
}

export function toRunDetail(row: RunRow): PipelineRunDetail {
  const logs = row.agentLogs ?? {};
  return {
    ...toRunSummary(row),
    subtasks: row.subtasks ?? [],
    fileChanges: row.fileChanges ?? { files: [] },
    reviewFindings: row.reviewFindings ?? null,
    calls: row.calls,
    agentLogCounts: {
      planner: logs.planner?.length ?? 0,
      coder: logs.coder?.length ?? 0,
      reviewer: logs.reviewer?.length ?? 0,
    },
  };
}
