import { create } from 'zustand';
import type {
  AgentType,
  ErrorDetails,
  FileChanges,
  PipelinePhase,
  PipelineRunDetail,
  PipelineRunSummary,
  PipelineStatus,
  ProviderId,
  ReviewResult,
  TokenUsage,
} from '@/contracts/pipeline';
import {
  type AgentLogsState,
  type EventMeta,
  emptyLogs,
  isActivePhase,
  type LogAppend,
  newRunState,
  type PipelineRunState,
  type SubtaskProgress,
  time,
  withSnapshot,
} from './run-state';

interface PipelineStoreState {
  runs: Record<string, PipelineRunState>;
  logs: Record<string, AgentLogsState>;
  /** The highest event id applied per task. */
  lastEventIds: Record<string, number>;
  /** The latest run of every task the board has heard of, from the project stream. */
  summaries: Record<string, PipelineRunSummary>;

  startPipeline: (taskId: string, runId: string, provider?: ProviderId) => void;
  updatePhase: (
    taskId: string,
    phase: PipelinePhase,
    status: PipelineStatus,
    iteration: number,
    meta: EventMeta & { subtask?: SubtaskProgress | undefined; timestamp?: number },
  ) => void;
  appendLog: (taskId: string, agent: AgentType, chunk: string, timestamp: number, meta: EventMeta) => void;
  appendLogs: (taskId: string, entries: readonly LogAppend[]) => void;
  setError: (taskId: string, errorDetails: ErrorDetails, meta: EventMeta) => void;
  setUsage: (taskId: string, usage: TokenUsage & { costUsd: number }, meta: EventMeta) => void;
  setComplete: (
    taskId: string,
    result: 'passed' | 'failed',
    meta: EventMeta & { fileChanges?: FileChanges | undefined; reviewFindings?: ReviewResult | undefined },
  ) => void;
  /** An event that changes nothing here (a task move) still counts as seen. */
  markSeen: (taskId: string, id: number) => void;
  retryPipeline: (taskId: string, delayMs?: number) => void;
  cancelPipeline: (taskId: string) => void;
  markApproved: (taskId: string, mergeCommit: string | null) => void;
  /** Puts back a run saved before an optimistic change the server then refused. */
  restoreRun: (taskId: string, run: PipelineRunState | null) => void;
  hydrateRun: (taskId: string, detail: PipelineRunDetail) => void;
  setRunSummary: (summary: PipelineRunSummary) => void;
  setStreaming: (taskId: string, streaming: boolean) => void;
  clearLogs: (taskId: string) => void;
  removePipeline: (taskId: string) => void;
}

export const usePipelineStore = create<PipelineStoreState>((set, get) => {
  /**
   * Applies `change` to the task's run unless the event was applied before (its id is not above the
   * task's high-water mark). An event of another run starts that run afresh, logs included.
   */
  const applyEvent = (
    taskId: string,
    meta: EventMeta,
    change: (run: PipelineRunState) => Partial<PipelineRunState>,
    timestamp = Date.now(),
  ) =>
    set((state) => {
      const last = state.lastEventIds[taskId] ?? 0;
      if (meta.id !== undefined && meta.id <= last) return state;
      const current = state.runs[taskId];
      const fresh = !current || current.runId !== meta.runId;
      const run = fresh ? newRunState(meta.runId, timestamp) : current;
      const streaming = meta.id !== undefined || run.streaming;
      return {
        runs: { ...state.runs, [taskId]: { ...run, ...change(run), streaming } },
        logs: fresh ? { ...state.logs, [taskId]: emptyLogs() } : state.logs,
        lastEventIds:
          meta.id === undefined ? state.lastEventIds : { ...state.lastEventIds, [taskId]: meta.id },
      };
    });

  return {
    runs: {},
    logs: {},
    lastEventIds: {},
    summaries: {},

    startPipeline: (taskId, runId, provider) =>
      set((state) => {
        // The run's first events may have come before the answer to the start request.
        if (state.runs[taskId]?.runId === runId) return state;
        return {
          runs: { ...state.runs, [taskId]: newRunState(runId, Date.now(), provider ?? null) },
          logs: { ...state.logs, [taskId]: emptyLogs() },
        };
      }),

    updatePhase: (taskId, phase, status, iteration, meta) =>
      applyEvent(
        taskId,
        meta,
        (run) => ({
          phase,
          status,
          iteration,
          // Coding at a later iteration: a request for changes began a new round.
          ...(phase === 'coding' && iteration > run.roundStart
            ? { roundStart: iteration, fixedInRound: false }
            : phase === 'fixing'
              ? { fixedInRound: true }
              : {}),
          lastActivePhase: isActivePhase(phase) ? phase : run.lastActivePhase,
          subtask: phase === 'coding' ? (meta.subtask ?? run.subtask) : null,
          errorDetails: status === 'running' ? null : run.errorDetails,
          completedAt:
            status === 'running' || status === 'paused' ? null : (meta.timestamp ?? run.completedAt),
          retryAt: status === 'running' ? run.retryAt : null,
        }),
        meta.timestamp,
      ),

    appendLog: (taskId, agent, chunk, timestamp, meta) =>
      get().appendLogs(taskId, [{ agent, chunk, timestamp, runId: meta.runId, id: meta.id ?? 0 }]),

    appendLogs: (taskId, entries) =>
      set((state) => {
        let last = state.lastEventIds[taskId] ?? 0;
        let run = state.runs[taskId];
        let logs = state.logs[taskId] ?? emptyLogs();
        let added = emptyLogs();
        for (const entry of entries) {
          if (entry.id !== 0 && entry.id <= last) continue;
          if (!run || run.runId !== entry.runId) {
            run = newRunState(entry.runId, entry.timestamp);
            logs = emptyLogs();
            added = emptyLogs();
          }
          added[entry.agent].push({ id: entry.id, chunk: entry.chunk, timestamp: entry.timestamp });
          if (entry.id !== 0) last = entry.id;
        }
        if (!run || (!added.planner.length && !added.coder.length && !added.reviewer.length)) return state;
        const merged: AgentLogsState = {
          planner: added.planner.length ? [...logs.planner, ...added.planner] : logs.planner,
          coder: added.coder.length ? [...logs.coder, ...added.coder] : logs.coder,
          reviewer: added.reviewer.length ? [...logs.reviewer, ...added.reviewer] : logs.reviewer,
        };
        return {
          runs: { ...state.runs, [taskId]: { ...run, streaming: true } },
          logs: { ...state.logs, [taskId]: merged },
          lastEventIds: { ...state.lastEventIds, [taskId]: last },
        };
      }),

    setError: (taskId, errorDetails, meta) =>
      applyEvent(
        taskId,
        meta,
        (run) => ({
          errorDetails,
          // A retryable error pauses the run (its phase-change follows); any other ends it.
          ...(errorDetails.retryable
            ? { status: 'paused' as const }
            : { status: 'failed' as const, phase: 'failed' as const }),
          lastActivePhase: errorDetails.failedPhase ?? run.lastActivePhase,
          retryAt: null,
        }),
        errorDetails.timestamp,
      ),

    setUsage: (taskId, usage, meta) => applyEvent(taskId, meta, () => ({ usage })),

    setComplete: (taskId, result, meta) =>
      applyEvent(taskId, meta, (run) => ({
        status: result,
        phase: result === 'passed' ? 'completed' : 'failed',
        fileChanges: meta.fileChanges?.files ?? run.fileChanges,
        reviewFindings: meta.reviewFindings ?? run.reviewFindings,
        completedAt: run.completedAt ?? Date.now(),
        subtask: null,
      })),

    markSeen: (taskId, id) =>
      set((state) =>
        id <= (state.lastEventIds[taskId] ?? 0)
          ? state
          : { lastEventIds: { ...state.lastEventIds, [taskId]: id } },
      ),

    retryPipeline: (taskId, delayMs = 0) =>
      set((state) => {
        const run = state.runs[taskId];
        if (!run) return state;
        const phase = run.errorDetails?.failedPhase ?? run.lastActivePhase ?? run.phase;
        return {
          runs: {
            ...state.runs,
            [taskId]: {
              ...run,
              status: 'running',
              phase,
              errorDetails: null,
              retryAt: delayMs > 0 ? Date.now() + delayMs : null,
            },
          },
        };
      }),

    cancelPipeline: (taskId) =>
      set((state) => {
        const run = state.runs[taskId];
        if (!run) return state;
        return {
          runs: {
            ...state.runs,
            [taskId]: {
              ...run,
              status: 'cancelled',
              phase: 'cancelled',
              completedAt: Date.now(),
              retryAt: null,
            },
          },
        };
      }),

    markApproved: (taskId, mergeCommit) =>
      set((state) => {
        const run = state.runs[taskId];
        return run ? { runs: { ...state.runs, [taskId]: { ...run, mergeCommit } } } : state;
      }),

    restoreRun: (taskId, run) =>
      set((state) => {
        const runs = { ...state.runs };
        if (run) runs[taskId] = run;
        else delete runs[taskId];
        return { runs };
      }),

    hydrateRun: (taskId, detail) =>
      set((state) => {
        const current = state.runs[taskId];
        const startedAt = time(detail.startedAt) ?? 0;
        // A run the stream started after this copy was fetched is newer: keep it.
        if (current && current.runId !== detail.id && current.startedAt > startedAt) return state;
        const sameRun = current?.runId === detail.id;
        const base = sameRun ? current : newRunState(detail.id, startedAt, detail.provider);
        const run = withSnapshot(base, detail);
        const hydrated: PipelineRunState = {
          ...run,
          subtasks: detail.subtasks.length > 0 ? detail.subtasks : run.subtasks,
          fileChanges:
            run.streaming && run.fileChanges.length > detail.fileChanges.files.length
              ? run.fileChanges
              : detail.fileChanges.files,
          reviewFindings: run.streaming
            ? (run.reviewFindings ?? detail.reviewFindings)
            : detail.reviewFindings,
          lastActivePhase: run.lastActivePhase ?? detail.errorDetails?.failedPhase ?? null,
        };
        return {
          runs: { ...state.runs, [taskId]: hydrated },
          logs: sameRun ? state.logs : { ...state.logs, [taskId]: emptyLogs() },
        };
      }),

    setRunSummary: (summary) =>
      set((state) => {
        const previous = state.summaries[summary.taskId];
        if (previous && previous.id !== summary.id && previous.startedAt > summary.startedAt) return state;
        const run = state.runs[summary.taskId];
        return {
          summaries: { ...state.summaries, [summary.taskId]: summary },
          runs:
            run && run.runId === summary.id
              ? { ...state.runs, [summary.taskId]: withSnapshot(run, summary) }
              : state.runs,
        };
      }),

    setStreaming: (taskId, streaming) =>
      set((state) => {
        const run = state.runs[taskId];
        if (!run || run.streaming === streaming) return state;
        return { runs: { ...state.runs, [taskId]: { ...run, streaming } } };
      }),

    clearLogs: (taskId) => set((state) => ({ logs: { ...state.logs, [taskId]: emptyLogs() } })),

    removePipeline: (taskId) =>
      set((state) => {
        const { [taskId]: _run, ...runs } = state.runs;
        const { [taskId]: _logs, ...logs } = state.logs;
        const { [taskId]: _last, ...lastEventIds } = state.lastEventIds;
        return { runs, logs, lastEventIds };
      }),
  };
});

export const usePipelineRun = (taskId: string) => usePipelineStore((state) => state.runs[taskId] ?? null);
export const useAgentLogs = (taskId: string) => usePipelineStore((state) => state.logs[taskId] ?? null);
export const useRunSummary = (taskId: string) => usePipelineStore((state) => state.summaries[taskId] ?? null);
export const useAnyPipelineRunning = () =>
  usePipelineStore((state) => Object.values(state.runs).some((run) => run.status === 'running'));
