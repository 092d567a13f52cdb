import {
  ACTIVE_PHASES,
  type ActivePhase,
  type AgentType,
  type ErrorDetails,
  type FileChanges,
  type PipelinePhase,
  type PipelineRunSummary,
  type PipelineStatus,
  type ProviderId,
  type ReviewResult,
  type Subtask,
  type TokenUsage,
} from '@/contracts/pipeline';

export interface LogEntry {
  /** The event's id in the task's stream: replays of it are recognised and dropped. */
  id: number;
  chunk: string;
  timestamp: number;
}

export type AgentLogsState = Record<AgentType, LogEntry[]>;

export interface SubtaskProgress {
  index: number;
  total: number;
  title: string;
}

/** The client's mirror of a task's latest run: fetched once, then kept current by its events. */
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
  errorDetails: ErrorDetails | null;
  usage: TokenUsage & { costUsd: number };
  provider: ProviderId | null;
  simulated: boolean;
  branch: string | null;
  baseCommit: string | null;
  headCommit: string | null;
  subtasks: Subtask[];
  fileChanges: FileChanges['files'];
  reviewFindings: ReviewResult | null;
  /** Epoch ms. */
  startedAt: number;
  completedAt: number | null;
  mergeCommit: string | null;
  /** When a retry's backoff ends (epoch ms), for the countdown. */
  retryAt: number | null;
  /** True while the task's stream is attached and has applied events: then it, not a fetched copy, is current. */
  streaming: boolean;
}

/** Which run an event belongs to, and its id in the task's stream (absent for optimistic updates). */
export interface EventMeta {
  runId: string;
  id?: number | undefined;
}

export interface LogAppend extends EventMeta {
  agent: AgentType;
  chunk: string;
  timestamp: number;
  id: number;
}

export const emptyLogs = (): AgentLogsState => ({ planner: [], coder: [], reviewer: [] });
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
    errorDetails: null,
    usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
    provider,
    simulated: provider === 'simulator',
    branch: null,
    baseCommit: null,
    headCommit: null,
    subtasks: [],
    fileChanges: [],
    reviewFindings: null,
    startedAt,
    completedAt: null,
    mergeCommit: null,
    retryAt: null,
    streaming: false,
  } satisfies PipelineRunState;
}

export const time = (iso: string | null) => (iso ? Date.parse(iso) : null);

function fromSummary(summary: PipelineRunSummary) {
  return {
    phase: summary.phase,
    status: summary.status,
    iteration: summary.iteration,
    errorDetails: summary.errorDetails,
    usage: summary.usage,
    provider: summary.provider,
    simulated: summary.simulated,
    branch: summary.branch,
    baseCommit: summary.baseCommit,
    headCommit: summary.headCommit,
    mergeCommit: summary.mergeCommit,
    startedAt: time(summary.startedAt) ?? Date.now(),
    completedAt: time(summary.completedAt),
  };
}

/** Where a run stands by what the server last said of it, for a run whose events are not being applied. */
export function withSnapshot(run: PipelineRunState, summary: PipelineRunSummary): PipelineRunState {
  const snapshot = fromSummary(summary);
  if (run.streaming) {
    // The stream is current on phase and status; the snapshot adds what events do not carry.
    return {
      ...run,
      provider: snapshot.provider,
      simulated: snapshot.simulated,
      branch: snapshot.branch ?? run.branch,
      baseCommit: snapshot.baseCommit ?? run.baseCommit,
      headCommit: snapshot.headCommit ?? run.headCommit,
      mergeCommit: snapshot.mergeCommit ?? run.mergeCommit,
      usage: snapshot.usage.outputTokens > run.usage.outputTokens ? snapshot.usage : run.usage,
      startedAt: snapshot.startedAt,
    };
  }
  return {
    ...run,
    ...snapshot,
    lastActivePhase: isActivePhase(snapshot.phase) ? snapshot.phase : run.lastActivePhase,
    fixedInRound: run.fixedInRound || snapshot.phase === 'fixing',
    subtask: snapshot.phase === 'coding' ? run.subtask : null,
  };
}
