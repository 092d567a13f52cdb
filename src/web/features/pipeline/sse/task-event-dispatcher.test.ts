import { beforeEach, describe, expect, it } from 'vitest';
import { usePipelineStore } from '../stores/pipeline-store';
import { createTaskEventDispatcher } from './task-event-dispatcher';

const T = 'task-1';
const state = () => usePipelineStore.getState();

beforeEach(() => usePipelineStore.setState({ runs: {}, logs: {}, lastEventIds: {}, summaries: {} }));

function dispatcher() {
  let scheduled: (() => void) | null = null;
  const d = createTaskEventDispatcher(T, usePipelineStore.getState, (flush) => {
    scheduled = flush;
    return () => {
      scheduled = null;
    };
  });
  return { d, frame: () => scheduled?.() };
}

describe('task event dispatcher', () => {
  it('buffers chunks until the next frame', () => {
    const { d, frame } = dispatcher();
    d.handle('agent-log', { runId: 'r', agent: 'planner', chunk: 'a', timestamp: 1 }, 1);
    d.handle('agent-log', { runId: 'r', agent: 'planner', chunk: 'b', timestamp: 2 }, 2);
    expect(state().logs[T]).toBeUndefined();
    frame();
    expect(
      state()
        .logs[T]?.planner.map((e) => e.chunk)
        .join(''),
    ).toBe('ab');
  });

  it('applies buffered chunks before any other event, so ids stay in order', () => {
    const { d } = dispatcher();
    d.handle('agent-log', { runId: 'r', agent: 'planner', chunk: 'plan', timestamp: 1 }, 1);
    d.handle(
      'phase-change',
      { runId: 'r', phase: 'coding', status: 'running', iteration: 0, timestamp: 2 },
      2,
    );
    expect(state().logs[T]?.planner).toHaveLength(1);
    expect(state().runs[T]?.phase).toBe('coding');
  });

  it('a replay of events already applied changes nothing', () => {
    const { d, frame } = dispatcher();
    const events: [string, unknown, number][] = [
      ['phase-change', { runId: 'r', phase: 'planning', status: 'running', iteration: 0, timestamp: 1 }, 1],
      ['agent-log', { runId: 'r', agent: 'planner', chunk: 'x', timestamp: 2 }, 2],
      ['usage', { runId: 'r', total: { inputTokens: 5, outputTokens: 6, costUsd: 0 }, timestamp: 3 }, 3],
      ['phase-change', { runId: 'r', phase: 'coding', status: 'running', iteration: 0, timestamp: 4 }, 4],
    ];
    for (const event of events) d.handle(...event);
    frame();
    const before = state();
    for (const event of events) d.handle(...event);
    frame();
    expect(state().logs[T]).toBe(before.logs[T]);
    expect(state().runs[T]).toBe(before.runs[T]);
    expect(state().runs[T]?.usage.outputTokens).toBe(6);
  });

  it('sends a pipeline error to the store as the run’s error', () => {
    const { d } = dispatcher();
    d.handle(
      'error',
      {
        runId: 'r',
        type: 'api_error',
        message: 'Rate limited',
        statusCode: 429,
        retryable: true,
        retryCount: 0,
        maxRetries: 3,
        timestamp: 1,
      },
      5,
    );
    expect(state().runs[T]).toMatchObject({ status: 'paused', errorDetails: { message: 'Rate limited' } });
  });
});
