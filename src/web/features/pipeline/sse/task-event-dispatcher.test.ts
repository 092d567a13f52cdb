import { beforeEach, describe, expect, it } from 'vitest';
import { runEvents } from '@/web/testing/run-fixtures';
import { selectRun, usePipelineStore } from '../stores/pipeline-store';
import { createTaskEventDispatcher } from './task-event-dispatcher';

const T = 'task-1';
const state = () => usePipelineStore.getState();
const e = runEvents('r', T);

beforeEach(() => usePipelineStore.setState({ tasks: {}, summaries: {} }));

function dispatcher() {
  let scheduled: (() => void) | null = null;
  const d = createTaskEventDispatcher(T, usePipelineStore.getState, (flush) => {
    scheduled = flush;
    return () => {
      scheduled = null;
    };
  });
  const send = (event: ReturnType<typeof e.log>) => d.handle(event.type, event.data, event.id);
  return { d, send, frame: () => scheduled?.() };
}

describe('task event dispatcher', () => {
  it('buffers chunks until the next frame', () => {
    const { send, frame } = dispatcher();
    send(e.log(1, 'planner', 'a'));
    send(e.log(2, 'planner', 'b'));
    expect(state().tasks[T]).toBeUndefined();
    frame();
    expect(
      state()
        .tasks[T]?.logs.planner.map((l) => (l.kind === 'prose' ? l.chunk : ''))
        .join(''),
    ).toBe('ab');
  });

  it('applies buffered chunks before any other event, so ids stay in order', () => {
    const { send } = dispatcher();
    send(e.log(1, 'planner', 'plan'));
    send(e.phase(2, 'coding'));
    expect(state().tasks[T]?.logs.planner).toHaveLength(1);
    expect(selectRun(state(), T)?.phase).toBe('coding');
  });

  it('a replay of events already applied changes nothing', () => {
    const { send, frame } = dispatcher();
    const events = [
      e.phase(1, 'planning'),
      e.log(2, 'planner', 'x'),
      e.update(3, { id: 'r' }),
      e.phase(4, 'coding'),
    ];
    for (const event of events) send(event);
    frame();
    const before = state().tasks[T];
    for (const event of events) send(event);
    frame();
    expect(state().tasks[T]).toBe(before);
  });

  it('takes the run’s summary from run-update', () => {
    const { send } = dispatcher();
    send(e.update(1, { id: 'r', phase: 'reviewing', branch: 'autocoder/x', headCommit: 'c3' }));
    expect(selectRun(state(), T)).toMatchObject({ runId: 'r', phase: 'reviewing', headCommit: 'c3' });
  });

  it('buffers tool calls and results with the chunks, applied in the order they came', () => {
    const { send, frame } = dispatcher();
    send(e.log(1, 'coder', 'reading'));
    send(e.toolCall(2, 'coder', 'c1', 'read_file', { path: 'a.ts' }));
    send(e.toolResult(3, 'coder', 'c1', 'Read a.ts'));
    expect(state().tasks[T]).toBeUndefined();
    frame();
    expect(state().tasks[T]?.logs.coder.map((entry) => entry.kind)).toEqual(['prose', 'tool']);
    expect(state().tasks[T]?.logs.coder[1]).toMatchObject({ kind: 'tool', result: { summary: 'Read a.ts' } });
  });
});
