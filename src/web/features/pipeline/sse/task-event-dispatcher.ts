import type { PipelineEvent } from '@/contracts/pipeline';
import { usePipelineStore } from '../stores/pipeline-store';
import type { TaskEvent } from '../stores/run-reducer';

/** The named events of a task's stream (GET /api/sse/:taskId); `timeout` is the stream's own. */
export const TASK_STREAM_EVENTS = [
  'agent-log',
  'phase-change',
  'run-update',
  'task-status',
  'error',
  'pipeline-complete',
  'usage',
  'check-log',
  'check-result',
  'setup-log',
  'setup-result',
  'agent-tool-call',
  'agent-tool-result',
  'lock-wait',
] as const;

/** Events that only add to a log (agents' timelines, checks' and setups' output): applied together once per frame. */
const BUFFERED: ReadonlySet<string> = new Set([
  'agent-log',
  'check-log',
  'setup-log',
  'agent-tool-call',
  'agent-tool-result',
]);

export interface TaskEventDispatcher {
  handle: (type: string, data: unknown, id: number | null) => void;
  /** Applies what is buffered now. */
  flush: () => void;
  dispose: () => void;
}

type Store = ReturnType<typeof usePipelineStore.getState>;

/**
 * Sends a task's events to the pipeline store, in the order they came. Log chunks (agents' and
 * checks') and tool calls arrive by the hundred (a reload replays a whole run at once), so they are
 * buffered and applied together once per frame; any other event is applied at once, after what is
 * buffered.
 */
export function createTaskEventDispatcher(
  taskId: string,
  store: () => Store = usePipelineStore.getState,
  schedule: (flush: () => void) => () => void = scheduleFrame,
): TaskEventDispatcher {
  let buffer: TaskEvent[] = [];
  let cancelScheduled: (() => void) | null = null;

  const flush = () => {
    cancelScheduled?.();
    cancelScheduled = null;
    if (buffer.length === 0) return;
    const events = buffer;
    buffer = [];
    store().applyEvents(taskId, events);
  };

  const handle = (type: string, data: unknown, id: number | null) => {
    buffer.push({ type, data, id } as PipelineEvent & { id: number | null });
    if (BUFFERED.has(type)) cancelScheduled ??= schedule(flush);
    else flush();
  };

  return { handle, flush, dispose: flush };
}

function scheduleFrame(callback: () => void): () => void {
  if (typeof requestAnimationFrame === 'function' && typeof document !== 'undefined' && !document.hidden) {
    const frame = requestAnimationFrame(callback);
    return () => cancelAnimationFrame(frame);
  }
  // Background tabs get no frames: flush on a timer instead.
  const timer = setTimeout(callback, 100);
  return () => clearTimeout(timer);
}
