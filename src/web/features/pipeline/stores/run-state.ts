import {
  ACTIVE_PHASES,
  type ActivePhase,
  type AgentCallUsage,
  type AgentToolCallData,
  type AgentToolResultData,
  type AgentType,
  type CheckResultData,
  type ErrorDetails,
  type FileChanges,
  type LockWaitData,
  type PipelinePhase,
  type PipelineRunDetail,
  type PipelineRunSummary,
  type PipelineStatus,
  type ProviderId,
  type ReviewResult,
  type SetupResultData,
  type Subtask,
  type TokenUsage,
} from '@/contracts/pipeline';

export interface LogEntry {
  /** The event's id in the task's stream. */
  id: number;
  chunk: string;
  timestamp: number;
}

/** A piece of an agent's prose (the model's text, streamed). */
export interface ProseEntry extends LogEntry {
  kind: 'prose';
}

/** A coding agent the server runs in its sandbox, whose calls name their own tools. */
export type ExternalEngine = NonNullable<AgentToolCallData['engine']>;

/** One tool call of an agent's loop, with what it came to once its result arrives. */
export interface ToolEntry {
  kind: 'tool';
  /** The id of the `agent-tool-call` event (or of the result, for a result whose call was not seen). */
  id: number;
  callId: string;
  /** The tool's name as the model sent it ('' when only the result was seen). */
  tool: string;
  input: Record<string, unknown>;
  /** The external coding agent that made the call (its own tool names); absent for AutoCoder's. */
  engine?: ExternalEngine;
  timestamp: number;
  /** Null while the call runs (or when the run stopped before it ended). */
  result: AgentToolResultData | null;
  /** How many checks the run had when the call was made: a run_check's own check comes after them. */
  checksBefore: number;
  /** run_check: the index (in the run's checks) of the check it ran, once its result says. */
  checkIndex: number | null;
}

/** What one agent step spent (a `usage` event), at the point of the timeline it ended. */
export interface UsageEntry {
  kind: 'usage';
  id: number;
  call: AgentCallUsage;
  timestamp: number;
}

/** One line of an agent's timeline: its prose, its tool calls and its steps' usage, in stream order. */
export type AgentLogEntry = ProseEntry | ToolEntry | UsageEntry;

export type AgentLogsState = Record<AgentType, AgentLogEntry[]>;

/** A piece of a check's output, on the stream it was written to. */
export interface CheckLogEntry extends LogEntry {
  stream: 'stdout' | 'stderr';
}

/** One run of the repository's check (after a coding or fixing step): its output and how it ended. */
export interface CheckRun {
  entries: CheckLogEntry[];
  /** Null while it runs, or when it was stopped (the run was cancelled or paused meanwhile). */
  result: CheckResultData | null;
}

/**
 * One run of the project's setup command in the run's worktree (before its first check, service or
 * coder step; again on a Retry after it failed): its output and how it ended (maybe from the cache).
 */
export interface SetupRun {
  entries: CheckLogEntry[];
  /** Null while it runs, or when it was stopped. */
  result: SetupResultData | null;
}

/** A run's agent output, its setups and its checks, and which run they are of. */
export interface RunLogs extends AgentLogsState {
  runId: string | null;
  /** The repository's checks, oldest first. */
  checks: CheckRun[];
  /** The worktree's setups, oldest first (more than one when a failed setup was retried). */
  setups: SetupRun[];
}

export interface SubtaskProgress {
  index: number;
  total: number;
  /** Known from the phase-change that entered the subtask. */
  title?: string | undefined;
}

/** Where a run's products (subtasks, files, findings) were read at: what the server had then. */
export interface ProductsMark {
  headCommit: string | null;
  reviewScore: number | null;
}

/** A task's latest run as its events (and the one fetch that seeds it) describe it. */
export interface PipelineRunState {
  runId: string;
  phase: PipelinePhase;
  status: PipelineStatus;
  iteration: number;
  /** The iteration the current round began at: 0, or the one a request for changes started. */
  roundStart: number;
  /** Whether the reviewer sent the coder back in this round. */
  fixedInRound: boolean;
  /** Where agents last worked: where a paused, failed or cancelled run stopped. */
  lastActivePhase: ActivePhase | null;
  subtask: SubtaskProgress | null;
  /** How many subtasks the plan has, as far as events told (0 before coding). */
  subtaskTotal: number;
  errorDetails: ErrorDetails | null;
  usage: TokenUsage & { costUsd: number };
  /** What the task's earlier runs spent: with `usage`, the task's spend against its token budget. */
  earlierUsage: TokenUsage & { costUsd: number };
  provider: ProviderId | null;
  simulated: boolean;
  branch: string | null;
  baseCommit: string | null;
  headCommit: string | null;
  reviewScore: number | null;
  subtasks: Subtask[];
  fileChanges: FileChanges['files'];
  reviewFindings: ReviewResult | null;
  /** What the products above are current with; null: never read. */
  productsOf: ProductsMark | null;
  /** Epoch ms. */
  startedAt: number;
  completedAt: number | null;
  mergeCommit: string | null;
  /** The commit that reverted the last approval (until the next approval). */
  revertCommit: string | null;
  /** When a retry's backoff ends (epoch ms), for the countdown. */
  retryAt: number | null;
  /** The other agent's lock the run waits for, and until when; null when it waits for none. */
  lockWait: LockWait | null;
}

/** A run waiting for another agent's lock on a file (a `lock-wait` event). */
export type LockWait = Pick<LockWaitData, 'path' | 'holder'> & { until: number };

export const emptyLogs = (runId: string | null = null): RunLogs => ({
  runId,
  planner: [],
  coder: [],
  reviewer: [],
  checks: [],
  setups: [],
});

export const isActivePhase = (phase: PipelinePhase): phase is ActivePhase =>
  (ACTIVE_PHASES as readonly string[]).includes(phase);

export function newRunState(runId: string, startedAt: number, provider: ProviderId | null = null) {
  return {
    runId,
    phase: 'planning',
    status: 'running',
    iteration: 0,
    roundStart: 0,
    fixedInRound: false,
    lastActivePhase: null,
    subtask: null,
    subtaskTotal: 0,
    errorDetails: null,
    usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
    earlierUsage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
    provider,
    simulated: provider === 'simulator',
    branch: null,
    baseCommit: null,
    headCommit: null,
    reviewScore: null,
    subtasks: [],
    fileChanges: [],
    reviewFindings: null,
    productsOf: null,
    startedAt,
    completedAt: null,
    mergeCommit: null,
    revertCommit: null,
    retryAt: null,
    lockWait: null,
  } satisfies PipelineRunState;
}

export const time = (iso: string | null) => (iso ? Date.parse(iso) : null);

/** The run as a `run-update` (or the fetched copy) says it stands: the server's own record of it. */
export function withSummary(run: PipelineRunState, summary: PipelineRunSummary): PipelineRunState {
  const subtask = summary.subtask
    ? {
        ...summary.subtask,
        title:
          run.subtask?.index === summary.subtask.index
            ? run.subtask.title
            : run.subtasks[summary.subtask.index - 1]?.title,
      }
    : null;
  const running = summary.status === 'running';
  return {
    ...run,
    phase: summary.phase,
    status: summary.status,
    iteration: summary.iteration,
    roundStart: summary.roundStart,
    fixedInRound:
      summary.roundStart !== run.roundStart
        ? summary.phase === 'fixing'
        : run.fixedInRound || summary.phase === 'fixing',
    lastActivePhase: isActivePhase(summary.phase)
      ? summary.phase
      : (run.lastActivePhase ?? summary.errorDetails?.failedPhase ?? null),
    subtask,
    subtaskTotal: Math.max(run.subtaskTotal, summary.subtask?.total ?? 0),
    errorDetails: summary.errorDetails,
    // Usage only grows; an event may have told of a call the run's row does not hold yet.
    usage: summary.usage.outputTokens >= run.usage.outputTokens ? summary.usage : run.usage,
    earlierUsage: summary.earlierRunsUsage,
    provider: summary.provider,
    simulated: summary.simulated,
    branch: summary.branch,
    baseCommit: summary.baseCommit,
    headCommit: summary.headCommit,
    mergeCommit: summary.mergeCommit,
    revertCommit: summary.revertCommit ?? null,
    reviewScore: summary.reviewScore,
    startedAt: time(summary.startedAt) ?? run.startedAt,
    completedAt: time(summary.completedAt),
    retryAt: running ? run.retryAt : null,
    lockWait: running ? run.lockWait : null,
  };
}

/** The products of a fetched copy of the run (what events do not carry), and what they are current with. */
export function withProducts(run: PipelineRunState, detail: PipelineRunDetail): PipelineRunState {
  return {
    ...run,
    subtasks: detail.subtasks.length > 0 ? detail.subtasks : run.subtasks,
    subtaskTotal: Math.max(run.subtaskTotal, detail.subtasks.length),
    fileChanges: detail.fileChanges.files,
    reviewFindings: detail.reviewFindings,
    productsOf: { headCommit: detail.headCommit, reviewScore: detail.reviewScore },
  };
}

/**
 * What the run has produced that the store has not read yet, as a key (null: nothing): the plan
 * once coding starts, the files after each commit, the findings after each review. The products
 * are not in the events, so they are read when the events say there are new ones.
 */
export function productsWanted(run: PipelineRunState | null): string | null {
  if (!run) return null;
  const mark = run.productsOf ?? { headCommit: null, reviewScore: null };
  const plan = run.subtaskTotal > run.subtasks.length;
  const files = run.headCommit !== null && run.headCommit !== mark.headCommit;
  const review = run.reviewScore !== null && run.reviewScore !== mark.reviewScore;
  if (!plan && !files && !review) return null;
  return `${run.runId}:${run.subtaskTotal}:${run.headCommit}:${run.reviewScore}`;
}
