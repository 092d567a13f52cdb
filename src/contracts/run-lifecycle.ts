import type { ActivePhase, AgentType, PipelinePhase, PipelineStatus } from './pipeline.js';
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
}

/** A run that holds its task (and one of its user's slots): it runs, or waits for Retry or Cancel. */
export const ACTIVE_RUN_STATUSES = ['running', 'paused'] as const satisfies readonly PipelineStatus[];
export type ActiveRunStatus = (typeof ACTIVE_RUN_STATUSES)[number];

/** True while the run is active (running or paused). */
export function isActiveRun(status: string | null | undefined): status is ActiveRunStatus {
  return (ACTIVE_RUN_STATUSES as readonly string[]).includes(status ?? '');
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
}

/**
 * Every transition of a run. `enterPhase` and `progress` keep the run running: the first
 * announces a phase (or subtask), the second saves a step's results and cursor.
 */
export const RUN_TRANSITIONS = {
  start: { from: [], to: 'running', phase: 'planning', taskStatus: 'spec', announces: true },
  enterPhase: { from: ['running'], to: 'running', phase: 'cursor', announces: true },
  progress: { from: ['running'], to: 'running', phase: 'unchanged', announces: false },
  pause: { from: ['running'], to: 'paused', phase: 'paused', announces: true },
  fail: {
    from: ['running'],
    to: 'failed',
    phase: 'failed',
    taskStatus: 'backlog',
    completes: true,
    announces: true,
  },
  pass: {
    from: ['running'],
    to: 'passed',
    phase: 'completed',
    taskStatus: 'review',
    completes: true,
    announces: true,
  },
  cancel: {
    from: ACTIVE_RUN_STATUSES,
    to: 'cancelled',
    phase: 'cancelled',
    taskStatus: 'backlog',
    completes: true,
    announces: true,
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
  approve: { from: ['passed'], to: 'passed', phase: 'unchanged', taskStatus: 'done', announces: false },
} as const satisfies Record<string, RunTransitionRule>;

export type RunTransition = keyof typeof RUN_TRANSITIONS;
