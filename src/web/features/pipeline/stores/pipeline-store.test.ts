import { beforeEach, describe, expect, it } from 'vitest';
import type { PipelineRunDetail } from '@/contracts/pipeline';
import { usePipelineStore } from './pipeline-store';

const store = () => usePipelineStore.getState();
const T = 'task-1';

function detail(overrides: Partial<PipelineRunDetail> = {}): PipelineRunDetail {
  return {
    id: 'run-1',
    taskId: T,
    phase: 'coding',
    status: 'running',
    iteration: 0,
    provider: 'simulator',
    simulated: true,
    branch: 'autocoder/x',
    baseCommit: 'base',
    headCommit: 'head',
    mergeCommit: null,
    subtask: { index: 1, total: 1 },
    roundStart: 0,
    usage: { inputTokens: 10, outputTokens: 20, costUsd: 0 },
    reviewScore: null,
    errorDetails: null,
    startedAt: new Date(1_000).toISOString(),
    completedAt: null,
    subtasks: [{ id: 's1', title: 'One', description: 'd', order: 1 }],
    fileChanges: { files: [] },
    reviewFindings: null,
    calls: [],
    agentLogCounts: { planner: 1, coder: 0, reviewer: 0 },
    ...overrides,
  };
}

beforeEach(() => usePipelineStore.setState({ runs: {}, logs: {}, lastEventIds: {}, summaries: {} }));

describe('pipeline store', () => {
  it('starts a run in planning with empty logs', () => {
    store().startPipeline(T, 'run-1', 'simulator');
    expect(store().runs[T]).toMatchObject({
      runId: 'run-1',
      phase: 'planning',
      status: 'running',
      simulated: true,
    });
    expect(store().logs[T]).toEqual({ planner: [], coder: [], reviewer: [] });
  });

  it('keeps what the run’s first events brought when the start request answers after them', () => {
    store().appendLogs(T, [{ agent: 'planner', chunk: 'hi', timestamp: 1, runId: 'run-1', id: 3 }]);
    store().startPipeline(T, 'run-1');
    expect(store().logs[T]?.planner).toHaveLength(1);
  });

  it('appends chunks per agent and ignores an event id it has already applied (replays)', () => {
    const entries = [
      { agent: 'planner' as const, chunk: 'a', timestamp: 1, runId: 'run-1', id: 1 },
      { agent: 'coder' as const, chunk: 'b', timestamp: 2, runId: 'run-1', id: 2 },
    ];
    store().appendLogs(T, entries);
    store().appendLogs(T, entries);
    store().appendLog(T, 'planner', 'a', 1, { runId: 'run-1', id: 1 });
    expect(store().logs[T]?.planner.map((e) => e.chunk)).toEqual(['a']);
    expect(store().logs[T]?.coder.map((e) => e.chunk)).toEqual(['b']);
    expect(store().lastEventIds[T]).toBe(2);
  });

  it('starts afresh, logs included, when an event of another run arrives', () => {
    store().appendLogs(T, [{ agent: 'planner', chunk: 'old', timestamp: 1, runId: 'run-1', id: 1 }]);
    store().updatePhase(T, 'planning', 'running', 0, { runId: 'run-2', id: 2 });
    expect(store().runs[T]?.runId).toBe('run-2');
    expect(store().logs[T]?.planner).toEqual([]);
  });

  it('updates phase, status, iteration and the subtask being coded', () => {
    store().updatePhase(T, 'coding', 'running', 0, {
      runId: 'run-1',
      id: 1,
      subtask: { index: 2, total: 3, title: 'Two' },
    });
    expect(store().runs[T]).toMatchObject({ phase: 'coding', iteration: 0, subtask: { index: 2, total: 3 } });
    store().updatePhase(T, 'fixing', 'running', 1, { runId: 'run-1', id: 2 });
    expect(store().runs[T]).toMatchObject({
      phase: 'fixing',
      iteration: 1,
      subtask: null,
      fixedInRound: true,
    });
  });

  it('a request for changes (coding at a later iteration) begins a new round', () => {
    store().updatePhase(T, 'fixing', 'running', 1, { runId: 'run-1', id: 1 });
    store().updatePhase(T, 'completed', 'passed', 1, { runId: 'run-1', id: 2 });
    store().updatePhase(T, 'coding', 'running', 2, { runId: 'run-1', id: 3 });
    expect(store().runs[T]).toMatchObject({ roundStart: 2, fixedInRound: false });
  });

  it('pauses on a retryable error and fails on one that is not', () => {
    const error = {
      type: 'api_error' as const,
      message: 'rate limited',
      statusCode: 429,
      failedAgent: 'coder' as const,
      failedPhase: 'coding' as const,
      retryable: true,
      retryCount: 0,
      maxRetries: 3,
      timestamp: 5,
    };
    store().setError(T, error, { runId: 'run-1', id: 1 });
    expect(store().runs[T]).toMatchObject({
      status: 'paused',
      errorDetails: error,
      lastActivePhase: 'coding',
    });
    store().setError(T, { ...error, retryable: false }, { runId: 'run-1', id: 2 });
    expect(store().runs[T]).toMatchObject({ status: 'failed', phase: 'failed' });
  });

  it('stores the outcome, files and findings on completion', () => {
    store().setComplete(T, 'passed', {
      runId: 'run-1',
      id: 1,
      fileChanges: { files: [{ filePath: 'a.ts', language: 'ts', content: 'x', action: 'create' }] },
      reviewFindings: { passed: true, score: 90, findings: [] },
    });
    expect(store().runs[T]).toMatchObject({
      status: 'passed',
      phase: 'completed',
      reviewFindings: { score: 90 },
    });
    expect(store().runs[T]?.fileChanges).toHaveLength(1);
    expect(store().runs[T]?.completedAt).not.toBeNull();
  });

  it('retry and cancel change the run at once', () => {
    store().setError(
      T,
      {
        type: 'timeout',
        message: 'x',
        failedPhase: 'reviewing',
        retryable: true,
        retryCount: 0,
        maxRetries: 3,
        timestamp: 1,
      },
      { runId: 'run-1', id: 1 },
    );
    store().retryPipeline(T, 2000);
    expect(store().runs[T]).toMatchObject({ status: 'running', phase: 'reviewing', errorDetails: null });
    expect(store().runs[T]?.retryAt).toBeGreaterThan(Date.now());
    store().cancelPipeline(T);
    expect(store().runs[T]).toMatchObject({ status: 'cancelled', phase: 'cancelled' });
  });

  it('a fetched copy fills in what events do not carry but does not overrule a stream on phase', () => {
    store().updatePhase(T, 'reviewing', 'running', 0, { runId: 'run-1', id: 9 });
    store().hydrateRun(T, detail({ phase: 'coding' }));
    expect(store().runs[T]).toMatchObject({ phase: 'reviewing', branch: 'autocoder/x', headCommit: 'head' });
    expect(store().runs[T]?.subtasks).toHaveLength(1);
  });

  it('a fetched copy is current once the stream has stopped', () => {
    store().updatePhase(T, 'reviewing', 'running', 0, { runId: 'run-1', id: 9 });
    store().setStreaming(T, false);
    store().hydrateRun(T, detail({ phase: 'completed', status: 'passed' }));
    expect(store().runs[T]).toMatchObject({ phase: 'completed', status: 'passed' });
  });

  it('keeps the latest run summary per task for the board', () => {
    const summary = { ...detail(), id: 'run-2', startedAt: new Date(2_000).toISOString() };
    store().setRunSummary(summary);
    store().setRunSummary({ ...detail(), id: 'run-1' });
    expect(store().summaries[T]?.id).toBe('run-2');
  });

  it('removes a task from every map', () => {
    store().appendLogs(T, [{ agent: 'planner', chunk: 'a', timestamp: 1, runId: 'run-1', id: 1 }]);
    store().removePipeline(T);
    expect(store().runs[T]).toBeUndefined();
    expect(store().logs[T]).toBeUndefined();
    expect(store().lastEventIds[T]).toBeUndefined();
  });
});
