import type {
  AgentCallUsage,
  AgentToolResultData,
  AgentType,
  ErrorDetails,
  PipelinePhase,
  PipelineRunDetail,
  PipelineRunSummary,
  PipelineStatus,
  ReviewResult,
  StoredEvent,
} from '@/contracts/pipeline';

/** A run summary shaped as the API sends it (GET …/status, `run-update`). */
export function runSummary(overrides: Partial<PipelineRunSummary> = {}): PipelineRunSummary {
  return {
    id: 'run-1',
    taskId: 'task-1',
    phase: 'planning',
    status: 'running',
    iteration: 0,
    provider: 'simulator',
    simulated: true,
    branch: 'autocoder/add-a-greeting-1a2b3c4d',
    baseCommit: 'b'.repeat(40),
    headCommit: null,
    mergeCommit: null,
    revertCommit: null,
    subtask: null,
    roundStart: 0,
    usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
    earlierRunsUsage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
    reviewScore: null,
    errorDetails: null,
    startedAt: new Date(1_000).toISOString(),
    completedAt: null,
    ...overrides,
  };
}

export function runDetail(overrides: Partial<PipelineRunDetail> = {}): PipelineRunDetail {
  return {
    ...runSummary(),
    subtasks: [],
    fileChanges: { files: [] },
    reviewFindings: null,
    calls: [],
    agentLogCounts: { planner: 0, coder: 0, reviewer: 0 },
    ...overrides,
  };
}

export const plan = [
  { id: 's1', title: 'Write the greeting', description: 'greet(name)', order: 1 },
  { id: 's2', title: 'Export it', description: 'index.ts', order: 2 },
];

export const passingReview: ReviewResult = { passed: true, score: 92, findings: [] };

/** Builders of one run's task-stream events, numbered as the server numbers them. */
export function runEvents(runId = 'run-1', taskId = 'task-1') {
  const at = (id: number) => 1_000 + id;
  return {
    update: (id: number, run: Partial<PipelineRunSummary>): StoredEvent => ({
      id,
      type: 'run-update',
      data: { run: runSummary({ id: runId, taskId, ...run }), timestamp: at(id) },
    }),
    phase: (
      id: number,
      phase: PipelinePhase,
      status: PipelineStatus = 'running',
      iteration = 0,
      subtask?: { index: number; total: number; title: string },
    ): StoredEvent => ({
      id,
      type: 'phase-change',
      data: { runId, phase, status, iteration, ...(subtask ? { subtask } : {}), timestamp: at(id) },
    }),
    log: (id: number, agent: AgentType, chunk: string): StoredEvent => ({
      id,
      type: 'agent-log',
      data: { runId, agent, chunk, timestamp: at(id) },
    }),
    error: (id: number, details: Partial<ErrorDetails> = {}): StoredEvent => ({
      id,
      type: 'error',
      data: {
        runId,
        type: 'api_error',
        message: 'Rate limited (429)',
        statusCode: 429,
        failedAgent: 'coder',
        failedPhase: 'coding',
        retryable: true,
        retryCount: 0,
        maxRetries: 3,
        timestamp: at(id),
        ...details,
      },
    }),
    complete: (
      id: number,
      result: 'passed' | 'failed',
      review: ReviewResult = passingReview,
    ): StoredEvent => ({
      id,
      type: 'pipeline-complete',
      data: {
        runId,
        taskId,
        result,
        fileChanges: {
          files: [{ filePath: 'src/greet.ts', language: 'typescript', content: 'x', action: 'create' }],
        },
        reviewFindings: review,
        timestamp: at(id),
      },
    }),
    checkLog: (id: number, chunk: string, stream: 'stdout' | 'stderr' = 'stdout'): StoredEvent => ({
      id,
      type: 'check-log',
      data: { runId, stream, chunk, timestamp: at(id) },
    }),
    checkResult: (
      id: number,
      result: { exitCode: number | null; timedOut?: boolean; durationMs?: number; tail?: string },
    ): StoredEvent => ({
      id,
      type: 'check-result',
      data: {
        runId,
        exitCode: result.exitCode,
        passed: result.exitCode === 0 && !result.timedOut,
        timedOut: result.timedOut ?? false,
        durationMs: result.durationMs ?? 1_200,
        tail: result.tail ?? '',
        timestamp: at(id),
      },
    }),
    setupLog: (id: number, chunk: string, stream: 'stdout' | 'stderr' = 'stdout'): StoredEvent => ({
      id,
      type: 'setup-log',
      data: { runId, stream, chunk, timestamp: at(id) },
    }),
    setupResult: (
      id: number,
      result: {
        exitCode: number | null;
        cache?: 'hit' | 'miss' | 'off';
        timedOut?: boolean;
        durationMs?: number;
        tail?: string;
        paths?: string[];
        reason?: string;
      },
    ): StoredEvent => ({
      id,
      type: 'setup-result',
      data: {
        runId,
        exitCode: result.exitCode,
        passed: (result.cache === 'hit' || result.exitCode === 0) && !result.timedOut,
        timedOut: result.timedOut ?? false,
        durationMs: result.durationMs ?? 3_000,
        tail: result.tail ?? '',
        cache: result.cache ?? 'miss',
        paths: result.paths ?? ['node_modules'],
        ...(result.reason ? { reason: result.reason } : {}),
        timestamp: at(id),
      },
    }),
    toolCall: (
      id: number,
      agent: AgentType,
      callId: string,
      tool: string,
      input: Record<string, unknown> = {},
    ): StoredEvent => ({
      id,
      type: 'agent-tool-call',
      data: { runId, agent, callId, tool, input, timestamp: at(id) },
    }),
    toolResult: (
      id: number,
      agent: AgentType,
      callId: string,
      summary: string,
      more: Partial<Pick<AgentToolResultData, 'ok' | 'change' | 'check'>> = {},
    ): StoredEvent => ({
      id,
      type: 'agent-tool-result',
      data: { runId, agent, callId, ok: true, summary, ...more, timestamp: at(id) },
    }),
    usage: (id: number, call: Partial<AgentCallUsage> & Pick<AgentCallUsage, 'agent'>): StoredEvent => {
      const full: AgentCallUsage = {
        model: 'claude-sonnet-4-20250514',
        inputTokens: 1_000,
        outputTokens: 200,
        costUsd: 0.01,
        durationMs: 2_000,
        ...call,
      };
      return {
        id,
        type: 'usage',
        data: {
          runId,
          call: full,
          total: {
            inputTokens: full.inputTokens,
            outputTokens: full.outputTokens,
            ...(full.cacheReadTokens === undefined ? {} : { cacheReadTokens: full.cacheReadTokens }),
            costUsd: full.costUsd,
          },
          timestamp: at(id),
        },
      };
    },
    moved: (id: number): StoredEvent => ({
      id,
      type: 'task-status',
      data: { taskId, newStatus: 'building', timestamp: at(id) },
    }),
  };
}
