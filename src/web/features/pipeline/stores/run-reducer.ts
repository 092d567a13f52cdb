import type { PipelineEvent, PipelineRunDetail } from '@/contracts/pipeline';
import { appendProse, appendToolCall, appendUsage, applyToolResult, type Owned } from './agent-log-reducer';
import {
  type CheckRun,
  emptyLogs,
  isActivePhase,
  newRunState,
  type PipelineRunState,
  type RunLogs,
  type SetupRun,
  time,
  withProducts,
  withSummary,
} from './run-state';

/** An event of a task's stream with its sequence number there (null: none was given). */
export type TaskEvent = PipelineEvent & { id: number | null };

/**
 * Everything the browser knows of a task's latest run. One rule decides what it shows: the task
 * stream's events, applied once each in the order of their ids. A fetched copy only seeds a run
 * no event has told of yet, and supplies the products events do not carry. An optimistic change
 * shows until the server's next event on the run.
 */
export interface TaskRun {
  /** The id of the last event applied; an event at or below it is a replay and changes nothing. */
  seq: number;
  /** The run as the server has said it stands. */
  confirmed: PipelineRunState | null;
  /** What an action the user just took should lead to, until the server says. */
  pending: PipelineRunState | null;
  /** Runs the task has moved on from: their late events are counted, not applied. */
  retired: readonly string[];
  logs: RunLogs;
}

export const emptyTaskRun = (): TaskRun => ({
  seq: 0,
  confirmed: null,
  pending: null,
  retired: [],
  logs: emptyLogs(),
});

/** What the panels show: the optimistic change while there is one, else the server's word. */
export const viewOf = (task: TaskRun | undefined): PipelineRunState | null =>
  task ? (task.pending ?? task.confirmed) : null;

const runIdOf = (event: PipelineEvent): string | null => {
  switch (event.type) {
    case 'run-update':
      return event.data.run.id;
    case 'task-status':
    case 'timeout':
    case 'lock-taken':
    case 'lock-refused':
    case 'lock-released':
    case 'lock-expired':
    case 'head-moved':
      return null;
    default:
      return event.data.runId || null;
  }
};

/** Makes `runId` the task's run (a new run starts afresh, logs included), or null for a retired one. */
function enter(task: TaskRun, runId: string, startedAt: number): TaskRun | null {
  if (task.confirmed?.runId === runId) return task;
  if (task.retired.includes(runId)) return null;
  const provider = task.pending?.runId === runId ? task.pending.provider : null;
  return {
    ...task,
    confirmed: newRunState(runId, startedAt, provider),
    retired: task.confirmed ? [...task.retired, task.confirmed.runId] : task.retired,
    logs: task.logs.runId === runId ? task.logs : emptyLogs(runId),
  };
}

function changeOf(event: TaskEvent, run: PipelineRunState): PipelineRunState {
  switch (event.type) {
    case 'run-update':
      return withSummary(run, event.data.run);
    case 'phase-change': {
      const { phase, status, iteration, subtask, timestamp } = event.data;
      const newRound = phase === 'coding' && iteration > run.roundStart;
      return {
        ...run,
        phase,
        status,
        iteration,
        ...(newRound ? { roundStart: iteration, fixedInRound: false } : {}),
        ...(phase === 'fixing' ? { fixedInRound: true } : {}),
        lastActivePhase: isActivePhase(phase) ? phase : run.lastActivePhase,
        subtask: phase === 'coding' ? (subtask ?? run.subtask) : null,
        subtaskTotal: Math.max(run.subtaskTotal, subtask?.total ?? 0),
        errorDetails: status === 'running' ? null : run.errorDetails,
        completedAt: status === 'running' || status === 'paused' ? null : (run.completedAt ?? timestamp),
        retryAt: status === 'running' ? run.retryAt : null,
        lockWait: status === 'running' ? run.lockWait : null,
      };
    }
    case 'lock-wait': {
      const { path, holder, until } = event.data;
      return { ...run, lockWait: until === null ? null : { path, holder, until } };
    }
    case 'error': {
      const { runId: _runId, ...details } = event.data;
      return {
        ...run,
        errorDetails: details,
        // A retryable error pauses the run (its phase-change follows); any other ends it.
        ...(details.retryable
          ? { status: 'paused' as const }
          : { status: 'failed' as const, phase: 'failed' as const }),
        lastActivePhase: details.failedPhase ?? run.lastActivePhase,
        retryAt: null,
        lockWait: null,
      };
    }
    case 'usage':
      return { ...run, usage: event.data.total };
    case 'pipeline-complete': {
      const { result, fileChanges, reviewFindings, timestamp } = event.data;
      const files = fileChanges?.files ?? run.fileChanges;
      const findings = reviewFindings ?? run.reviewFindings;
      return {
        ...run,
        status: result,
        phase: result === 'passed' ? 'completed' : 'failed',
        fileChanges: files,
        reviewFindings: findings,
        productsOf: { headCommit: run.headCommit, reviewScore: findings?.score ?? run.reviewScore },
        completedAt: run.completedAt ?? timestamp,
        subtask: null,
        retryAt: null,
        lockWait: null,
      };
    }
    default:
      return run;
  }
}

const withLogs = (task: TaskRun, logs: RunLogs): TaskRun => (logs === task.logs ? task : { ...task, logs });

/** The agents' timelines: their prose, their tool calls (a result completes its call) and their steps' usage. */
function appendAgentEvent(
  task: TaskRun,
  event: TaskEvent & { type: 'agent-log' | 'agent-tool-call' | 'agent-tool-result' },
  owned: Owned,
): TaskRun {
  const id = event.id ?? 0;
  if (event.type === 'agent-log') return withLogs(task, appendProse(task.logs, event.data, id, owned));
  if (event.type === 'agent-tool-call')
    return withLogs(task, appendToolCall(task.logs, event.data, id, owned));
  return withLogs(task, applyToolResult(task.logs, event.data, id, owned));
}

type OutputEvent = TaskEvent & { type: 'check-log' | 'check-result' | 'setup-log' | 'setup-result' };

/**
 * A check's (or a setup's) output goes to the one in progress; output after a result (or the first)
 * begins the next one. A result ends the one in progress, or stands alone for one that printed nothing
 * (a setup restored from the cache).
 */
function appendOutput(task: TaskRun, event: OutputEvent, owned: Owned): TaskRun {
  const key = event.type === 'check-log' || event.type === 'check-result' ? 'checks' : 'setups';
  const runs: (CheckRun | SetupRun)[] = task.logs[key];
  const last = runs.at(-1);
  const open = last && last.result === null ? last : null;
  let current: CheckRun | SetupRun;
  if (!open) current = { entries: [], result: null };
  else if (owned.has(open.entries)) current = open;
  else current = { entries: [...open.entries], result: null };
  owned.add(current.entries);
  if (event.type === 'check-log' || event.type === 'setup-log') {
    const { stream, chunk, timestamp } = event.data;
    current.entries.push({ id: event.id ?? 0, stream, chunk, timestamp });
  } else current = { ...current, result: event.data } as CheckRun | SetupRun;
  if (current === open) return task;
  const next = open ? [...runs.slice(0, -1), current] : [...runs, current];
  return { ...task, logs: { ...task.logs, [key]: next } };
}

function reduceOne(task: TaskRun, event: TaskEvent, owned: Owned): TaskRun {
  if (event.id !== null && event.id <= task.seq) return task;
  const counted = event.id === null ? task : { ...task, seq: event.id };
  const runId = runIdOf(event);
  if (runId === null) return counted;
  const startedAt =
    event.type === 'run-update' ? (time(event.data.run.startedAt) ?? 0) : event.data.timestamp;
  const entered = enter(counted, runId, startedAt);
  if (!entered?.confirmed) return counted;
  if (event.type === 'agent-log' || event.type === 'agent-tool-call' || event.type === 'agent-tool-result')
    return appendAgentEvent(entered, event, owned);
  if (
    event.type === 'check-log' ||
    event.type === 'check-result' ||
    event.type === 'setup-log' ||
    event.type === 'setup-result'
  )
    return appendOutput(entered, event, owned);
  const confirmed = changeOf(event, entered.confirmed);
  const logs =
    event.type === 'usage' ? appendUsage(entered.logs, event.data, event.id ?? 0, owned) : entered.logs;
  // The server's word on the run ends an optimistic change, unless that change is a run not heard of yet.
  const states = event.type !== 'usage';
  const supersedes =
    states &&
    entered.pending !== null &&
    (entered.pending.runId === runId || entered.retired.includes(entered.pending.runId));
  return { ...entered, confirmed, logs, pending: supersedes ? null : entered.pending };
}

/** Applies a task's events in order; each at most once. */
export function reduceEvents(task: TaskRun, events: readonly TaskEvent[]): TaskRun {
  const owned: Owned = new Set();
  let next = task;
  for (const event of events) next = reduceOne(next, event, owned);
  return next;
}

/**
 * A fetched copy of the task's latest run. It seeds a run no event has told of (unless the stream
 * already holds a later one), and otherwise only brings the products events do not carry.
 */
export function seedRun(task: TaskRun, detail: PipelineRunDetail): TaskRun {
  const current = task.confirmed;
  if (task.retired.includes(detail.id)) return task;
  if (current?.runId === detail.id) {
    // A copy fetched while the run was still going has older products than the run's own end.
    const ended = current.status !== 'running' && current.status !== 'paused';
    const stale = ended && (detail.status === 'running' || detail.status === 'paused');
    return stale ? task : { ...task, confirmed: withProducts(current, detail) };
  }
  const startedAt = time(detail.startedAt) ?? 0;
  if (current && current.startedAt > startedAt) return task;
  const fresh = withSummary(newRunState(detail.id, startedAt, detail.provider), detail);
  return {
    ...task,
    confirmed: withProducts(fresh, detail),
    retired: current ? [...task.retired, current.runId] : task.retired,
    logs: task.logs.runId === detail.id ? task.logs : emptyLogs(detail.id),
  };
}

/** Shows `next` until the server's next event on the run. */
export function propose(task: TaskRun, next: PipelineRunState): TaskRun {
  return { ...task, pending: next };
}

/** Takes back an optimistic change the server refused, unless events have already replaced it. */
export function withdraw(task: TaskRun, proposed: PipelineRunState): TaskRun {
  return task.pending === proposed ? { ...task, pending: null } : task;
}
