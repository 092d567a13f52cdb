import type {
  ActivePhase,
  AgentType,
  CheckResultData,
  PipelineErrorType,
  PipelinePhase,
  PipelineStatus,
} from './pipeline.js';
import type { TaskStatus } from './tasks.js';

/**
 * The run lifecycle as data: which statuses count as active, which agent works in a phase, and
 * every transition a run can take. The server's `run-transitions.ts` applies these rules (one
 * conditional UPDATE each) and the web reads the same constants, so a new state or transition is
 * added here and nowhere else.
 */

/** Where a run stands inside its phase; stored with the run, so a retry resumes at the failed agent call. */
export interface RunCursor {
  phase: ActivePhase;
  /** Next subtask to code (coding). */
  subtaskIndex: number;
  /** Iteration at which the current round of automatic fixes began (start, or a request for changes). */
  roundStart: number;
  /** Retries already made of the agent call that failed; reset by every successful call. */
  retryCount: number;
  /** The person's feedback still to be coded (request changes). */
  feedback?: string | undefined;
  /** The people's open comments on lines of the diff, sent with the feedback. */
  comments?: { path: string; line: number; body: string }[] | undefined;
  /**
   * The default branch conflicts with the task branch: before the feedback is coded, the
   * default branch is merged into the branch and the coder resolves the conflicts.
   */
  resolveConflicts?: boolean | undefined;
  /**
   * How the repository's check (the project's `checkCommand`) ended after the last coding or
   * fixing step; the review that follows fails when it failed, and the next fix is shown its tail.
   */
  check?: CheckOutcome | undefined;
  /** The worktree's setup is done for this command: the top-level entries it made (never committed). */
  setup?: { command: string; paths: string[] } | undefined;
}

/** A check's result as a run keeps it (the `check-result` event without its run and time). */
export type CheckOutcome = Omit<CheckResultData, 'runId' | 'timestamp'>;

/**
 * The `file` of the review finding a failing check adds: no file of the diff, so it is a general
 * finding, and the coder is shown the check's output in a section of its own.
 */
export const CHECK_FINDING_FILE = '(repository check)';

/** A run that holds its task (and one of its user's slots): it runs, or waits for Retry or Cancel. */
export const ACTIVE_RUN_STATUSES = ['running', 'paused'] as const satisfies readonly PipelineStatus[];
export type ActiveRunStatus = (typeof ACTIVE_RUN_STATUSES)[number];

/** True while the run is active (running or paused). */
export function isActiveRun(status: string | null | undefined): status is ActiveRunStatus {
  return (ACTIVE_RUN_STATUSES as readonly string[]).includes(status ?? '');
}

/**
 * Pauses no provider or model caused, that wait for a person's decision (a higher token budget):
 * such a pause never ends the run as failed, and the Retry after it spends none of the run's
 * `MAX_RETRIES` and waits no backoff.
 */
export const PAUSES_WITHOUT_RETRY_COST = ['budget_exceeded'] as const satisfies readonly PipelineErrorType[];

/** Whether a Retry after a pause of this type counts against `MAX_RETRIES` (and waits its backoff). */
export function retryCostsAttempt(type: PipelineErrorType | null | undefined): boolean {
  return !(PAUSES_WITHOUT_RETRY_COST as readonly string[]).includes(type ?? '');
}

/** The agent that works in each phase. */
export const PHASE_AGENTS: Record<ActivePhase, AgentType> = {
  planning: 'planner',
  coding: 'coder',
  fixing: 'coder',
  reviewing: 'reviewer',
};

/** The agent that works in a phase. */
export const agentOfPhase = (phase: ActivePhase): AgentType => PHASE_AGENTS[phase];

/** How the interface names each agent. */
export const AGENT_LABELS: Record<AgentType, string> = {
  planner: 'Planner',
  coder: 'Coder',
  reviewer: 'Reviewer',
};

export interface RunTransitionRule {
  /** Statuses the run must be in for the transition to apply (empty: the run is created). */
  from: readonly PipelineStatus[];
  /** Status afterwards. */
  to: PipelineStatus;
  /** Phase afterwards; `cursor` means the phase the run's cursor points at. */
  phase: PipelinePhase | 'cursor' | 'unchanged';
  /** Column the task moves to. */
  taskStatus?: TaskStatus;
  /** Sets `completedAt` (the run has ended) or clears it (the run starts again). */
  completes?: boolean;
  /** Announced with a `phase-change` event on the task's stream. */
  announces: boolean;
  /** The run's file locks are released: it will write no more (see docs/coordination.md). */
  releasesLocks?: boolean;
  /** The run keeps its file locks while it waits (Review, a pause): they are recorded, and a restart takes them again. */
  recordsLocks?: boolean;
}

/**
 * Every transition of a run. `enterPhase` and `progress` keep the run running: the first
 * announces a phase (or subtask), the second saves a step's results and cursor.
 */
export const RUN_TRANSITIONS = {
  start: { from: [], to: 'running', phase: 'planning', taskStatus: 'spec', announces: true },
  enterPhase: { from: ['running'], to: 'running', phase: 'cursor', announces: true },
  progress: { from: ['running'], to: 'running', phase: 'unchanged', announces: false },
  pause: { from: ['running'], to: 'paused', phase: 'paused', announces: true, recordsLocks: true },
  fail: {
    from: ['running'],
    to: 'failed',
    phase: 'failed',
    taskStatus: 'backlog',
    completes: true,
    announces: true,
    releasesLocks: true,
  },
  pass: {
    from: ['running'],
    to: 'passed',
    phase: 'completed',
    taskStatus: 'review',
    completes: true,
    announces: true,
    recordsLocks: true,
  },
  cancel: {
    from: ACTIVE_RUN_STATUSES,
    to: 'cancelled',
    phase: 'cancelled',
    taskStatus: 'backlog',
    completes: true,
    announces: true,
    releasesLocks: true,
  },
  resume: { from: ['paused'], to: 'running', phase: 'cursor', announces: true },
  reopen: {
    from: ['passed'],
    to: 'running',
    phase: 'coding',
    taskStatus: 'building',
    completes: false,
    announces: true,
  },
  approve: {
    from: ['passed'],
    to: 'passed',
    phase: 'unchanged',
    taskStatus: 'done',
    announces: false,
    releasesLocks: true,
  },
  revert: { from: ['passed'], to: 'passed', phase: 'unchanged', taskStatus: 'review', announces: false },
} as const satisfies Record<string, RunTransitionRule>;

export type RunTransition = keyof typeof RUN_TRANSITIONS;
