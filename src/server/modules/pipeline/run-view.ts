import type {
  AgentCallUsage,
  AgentType,
  ErrorDetails,
  FileChanges,
  PipelinePhase,
  PipelineRunDetail,
  PipelineRunSummary,
  PipelineStatus,
  ProviderId,
  ReviewResult,
  Subtask,
} from '@/contracts/pipeline.js';
import type { RunRow } from './runs.repo.js';

export function toRunSummary(row: RunRow): PipelineRunSummary {
  const review = row.reviewFindings as ReviewResult | null;
  const cursor = row.cursor as { subtaskIndex?: number; roundStart?: number } | null;
  const total = ((row.subtasks as Subtask[] | null) ?? []).length;
  const coding = row.phase === 'coding' && total > 0;
  return {
    id: row.id,
    taskId: row.taskId,
    phase: row.phase as PipelinePhase,
    status: row.status as PipelineStatus,
    iteration: row.iteration,
    provider: row.provider as ProviderId,
    simulated: row.provider === 'simulator',
    branch: row.branch,
    baseCommit: row.baseCommit,
    headCommit: row.headCommit,
    mergeCommit: row.mergeCommit,
    subtask: coding ? { index: Math.min(total, (cursor?.subtaskIndex ?? 0) + 1), total } : null,
    roundStart: cursor?.roundStart ?? 0,
    usage: { inputTokens: row.inputTokens, outputTokens: row.outputTokens, costUsd: row.costUsd },
    reviewScore: review?.score ?? null,
    errorDetails: (row.errorDetails as ErrorDetails | null) ?? null,
    startedAt: row.startedAt.toISOString(),
    completedAt: row.completedAt?.toISOString() ?? null,
  };
}

export function toRunDetail(row: RunRow): PipelineRunDetail {
  const logs = (row.agentLogs ?? {}) as Partial<Record<AgentType, string[]>>;
  return {
    ...toRunSummary(row),
    subtasks: (row.subtasks as Subtask[] | null) ?? [],
    fileChanges: (row.fileChanges as FileChanges | null) ?? { files: [] },
    reviewFindings: (row.reviewFindings as ReviewResult | null) ?? null,
    calls: (row.calls as AgentCallUsage[] | null) ?? [],
    agentLogCounts: {
      planner: logs.planner?.length ?? 0,
      coder: logs.coder?.length ?? 0,
      reviewer: logs.reviewer?.length ?? 0,
    },
  };
}
