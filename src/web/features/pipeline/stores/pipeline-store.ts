import { create } from 'zustand';
import type {
  LockWaitData,
  PipelineRunDetail,
  PipelineRunSummary,
  ProviderId,
  RunStepData,
} from '@/contracts/pipeline';
import { isActiveRun } from '@/contracts/run-lifecycle';
import {
  emptyTaskRun,
  propose,
  reduceEvents,
  seedRun,
  type TaskEvent,
  type TaskRun,
  viewOf,
  withdraw,
} from './run-reducer';
import {
  type AgentLogsState,
  type CheckRun,
  newRunState,
  type PipelineRunState,
  type SetupRun,
} from './run-state';

interface PipelineStoreState {
  /** Per task, its latest run as reduced from the task's stream. */
  tasks: Record<string, TaskRun>;
  /** The latest run of every task the board has heard of, from the project stream. */
  summaries: Record<string, PipelineRunSummary>;
  /** Per task, the last `lock-wait` of its run the project stream told (for the cards). */
  lockWaits: Record<string, LockWaitData>;
  /** Per task, the last setup or check its run began or ended, as the project stream told (the cards). */
  runSteps: Record<string, RunStepData>;

  /** The task stream's events, in the order they came. */
  applyEvents: (taskId: string, events: readonly TaskEvent[]) => void;
  /** The one fetched copy of the task's latest run, and later reads of its products. */
  seedRun: (taskId: string, detail: PipelineRunDetail) => void;
  /**
   * Shows what an action should lead to until the server's next event; returns the proposal, to
   * `withdraw` if the server refuses. Nothing is proposed (null) for a task with no run.
   */
  propose: (taskId: string, change: (run: PipelineRunState) => PipelineRunState) => PipelineRunState | null;
  withdraw: (taskId: string, proposed: PipelineRunState) => void;
  /** The run a start request created, shown until its first events arrive. */
  startPipeline: (taskId: string, runId: string, provider?: ProviderId) => void;
  /** When the backoff of an accepted retry ends, for the countdown (the server's answer; events do not carry it). */
  setRetryAt: (taskId: string, retryAt: number | null) => void;
  setRunSummary: (summary: PipelineRunSummary) => void;
  setLockWait: (wait: LockWaitData) => void;
  setRunStep: (step: RunStepData) => void;
}

export const usePipelineStore = create<PipelineStoreState>((set, get) => {
  const update = (taskId: string, change: (task: TaskRun) => TaskRun) =>
    set((state) => {
      const task = state.tasks[taskId] ?? emptyTaskRun();
      const next = change(task);
      return next === task ? state : { tasks: { ...state.tasks, [taskId]: next } };
    });

  return {
    tasks: {},
    summaries: {},
    lockWaits: {},
    runSteps: {},

    applyEvents: (taskId, events) => update(taskId, (task) => reduceEvents(task, events)),

    seedRun: (taskId, detail) => update(taskId, (task) => seedRun(task, detail)),

    propose: (taskId, change) => {
      const run = viewOf(get().tasks[taskId]);
      if (!run) return null;
      const proposed = change(run);
      update(taskId, (task) => propose(task, proposed));
      return proposed;
    },

    withdraw: (taskId, proposed) => update(taskId, (task) => withdraw(task, proposed)),

    startPipeline: (taskId, runId, provider) =>
      update(taskId, (task) => {
        // The run's first events may have come before the answer to the start request.
        if (task.confirmed?.runId === runId || task.retired.includes(runId)) return task;
        return propose(task, newRunState(runId, Date.now(), provider ?? null));
      }),

    setRetryAt: (taskId, retryAt) =>
      update(taskId, (task) => ({
        ...task,
        confirmed: task.confirmed && { ...task.confirmed, retryAt },
        pending: task.pending && { ...task.pending, retryAt },
      })),

    setRunSummary: (summary) =>
      set((state) => {
        const previous = state.summaries[summary.taskId];
        if (previous && previous.id !== summary.id && previous.startedAt > summary.startedAt) return state;
        return { summaries: { ...state.summaries, [summary.taskId]: summary } };
      }),

    setLockWait: (wait) =>
      set((state) => {
        const previous = state.lockWaits[wait.taskId];
        if (previous && previous.timestamp > wait.timestamp) return state;
        return { lockWaits: { ...state.lockWaits, [wait.taskId]: wait } };
      }),

    setRunStep: (step) =>
      set((state) => {
        const previous = state.runSteps[step.taskId];
        if (previous && previous.timestamp > step.timestamp) return state;
        return { runSteps: { ...state.runSteps, [step.taskId]: step } };
      }),
  };
});

const NO_LOGS: AgentLogsState = { planner: [], coder: [], reviewer: [] };

/** The task's run as the panels show it. */
export const selectRun = (state: PipelineStoreState, taskId: string) => viewOf(state.tasks[taskId]);

export const usePipelineRun = (taskId: string) => usePipelineStore((state) => selectRun(state, taskId));

/** The agents' output of the run shown (none yet for a run only proposed). */
export const useAgentLogs = (taskId: string) =>
  usePipelineStore((state) => {
    const task = state.tasks[taskId];
    const run = viewOf(task);
    return task && run && task.logs.runId === run.runId ? task.logs : run ? NO_LOGS : null;
  });

const NO_CHECKS: CheckRun[] = [];

/** The repository checks of the run shown, oldest first (none for a run only proposed). */
export const useCheckRuns = (taskId: string) =>
  usePipelineStore((state) => {
    const task = state.tasks[taskId];
    const run = viewOf(task);
    return task && run && task.logs.runId === run.runId ? task.logs.checks : NO_CHECKS;
  });

const NO_SETUPS: SetupRun[] = [];

/** The worktree setups of the run shown, oldest first (none for a run only proposed, or no setup command). */
export const useSetupRuns = (taskId: string) =>
  usePipelineStore((state) => {
    const task = state.tasks[taskId];
    const run = viewOf(task);
    return task && run && task.logs.runId === run.runId ? (task.logs.setups ?? NO_SETUPS) : NO_SETUPS;
  });

export const useRunSummary = (taskId: string) => usePipelineStore((state) => state.summaries[taskId] ?? null);

/**
 * The lock the task's run waits for, if it waits: what its own stream said (the drawer), or else what
 * the project stream said of its latest run (the card), while that run is active.
 */
export const useLockWait = (taskId: string) =>
  usePipelineStore((state) => {
    const run = selectRun(state, taskId);
    if (run && state.tasks[taskId]?.logs.runId === run.runId) return run.lockWait;
    const wait = state.lockWaits[taskId];
    if (!wait || wait.until === null) return null;
    const summary = state.summaries[taskId];
    if (summary && (summary.id !== wait.runId || !isActiveRun(summary.status))) return null;
    if (run && (run.runId !== wait.runId || !isActiveRun(run.status))) return null;
    return wait as LockWaitData & { until: number };
  });

/** The setup or check the task's run (`runId`) is running now, as the project stream told; null otherwise. */
export const useRunningStep = (taskId: string, runId: string | null) =>
  usePipelineStore((state) => {
    const step = state.runSteps[taskId];
    return step?.running && step.runId === runId ? step.step : null;
  });
