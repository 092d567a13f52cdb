import type {
  AgentLogData,
  ErrorEventData,
  PhaseChangeData,
  PipelineCompleteData,
  UsageData,
} from '@/contracts/pipeline';
import { usePipelineStore } from '../stores/pipeline-store';
import type { LogAppend } from '../stores/run-state';

/** The named events of a task's stream (GET /api/sse/:taskId); `timeout` is the stream's own. */
export const TASK_STREAM_EVENTS = [
  'agent-log',
  'phase-change',
  'task-status',
  'error',
  'pipeline-complete',
  'usage',
] as const;

export interface TaskEventDispatcher {
  handle: (type: string, data: unknown, id: number | null) => void;
  /** Applies what is buffered now. */
  flush: () => void;
  dispose: () => void;
}

type Store = ReturnType<typeof usePipelineStore.getState>;

/**
 * Sends a task's events to the pipeline store. Log chunks arrive by the hundred (a reload replays a
 * whole run at once), so they are buffered and applied together once per frame; any other event
 * applies the buffer first, so the store sees events in their order.
 */
export function createTaskEventDispatcher(
  taskId: string,
  store: () => Store = usePipelineStore.getState,
  schedule: (flush: () => void) => () => void = scheduleFrame,
): TaskEventDispatcher {
  let buffer: LogAppend[] = [];
  let cancelScheduled: (() => void) | null = null;

  const flush = () => {
    cancelScheduled?.();
    cancelScheduled = null;
    if (buffer.length === 0) return;
    const entries = buffer;
    buffer = [];
    store().appendLogs(taskId, entries);
  };

  const handle = (type: string, data: unknown, id: number | null) => {
    const meta = { id: id ?? undefined };
    if (type === 'agent-log') {
      const log = data as AgentLogData;
      buffer.push({
        agent: log.agent,
        chunk: log.chunk,
        timestamp: log.timestamp,
        runId: log.runId,
        id: id ?? 0,
      });
      cancelScheduled ??= schedule(flush);
      return;
    }
    flush();
    const actions = store();
    switch (type) {
      case 'phase-change': {
        const change = data as PhaseChangeData;
        actions.updatePhase(taskId, change.phase, change.status, change.iteration, {
          ...meta,
          runId: change.runId,
          subtask: change.subtask,
          timestamp: change.timestamp,
        });
        return;
      }
      case 'error': {
        const { runId, ...details } = data as ErrorEventData;
        actions.setError(taskId, details, { ...meta, runId });
        return;
      }
      case 'usage': {
        const usage = data as UsageData;
        actions.setUsage(taskId, usage.total, { ...meta, runId: usage.runId });
        return;
      }
      case 'pipeline-complete': {
        const complete = data as PipelineCompleteData;
        actions.setComplete(taskId, complete.result, {
          ...meta,
          runId: complete.runId,
          fileChanges: complete.fileChanges,
          reviewFindings: complete.reviewFindings,
        });
        return;
      }
      default:
        // task-status: the board's own subscription moves the card; here it only counts as seen.
        if (id !== null) actions.markSeen(taskId, id);
    }
  };

  return {
    handle,
    flush,
    dispose: () => {
      flush();
    },
  };
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
