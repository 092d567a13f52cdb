import { useCallback, useEffect, useRef, useState } from 'react';
import { selectRun, usePipelineStore } from '../stores/pipeline-store';
import { type EventStream, openEventStream, type StreamState } from './event-stream';
import { createTaskEventDispatcher, TASK_STREAM_EVENTS } from './task-event-dispatcher';

interface UseSSEOptions {
  /** null: no connection. */
  taskId: string | null;
  enabled?: boolean;
}

export interface UseSSEReturn {
  isConnected: boolean;
  /** Why live updates stopped, once reconnecting has failed. */
  error: string | null;
  state: StreamState | 'off';
  reconnect: () => void;
}

const isActive = (taskId: string) => {
  const status = selectRun(usePipelineStore.getState(), taskId)?.status;
  return status === 'running' || status === 'paused';
};

/**
 * A task's live pipeline events into the pipeline store. A first connection
 * replays the latest run from its start (so a reload shows the whole log); a reconnection resumes
 * after the last event applied.
 */
export function useSSE({ taskId, enabled = true }: UseSSEOptions): UseSSEReturn {
  const [state, setState] = useState<StreamState | 'off'>('off');
  const [error, setError] = useState<string | null>(null);
  const streamRef = useRef<EventStream | null>(null);

  useEffect(() => {
    if (!taskId || !enabled) {
      setState('off');
      return;
    }
    const dispatcher = createTaskEventDispatcher(taskId);
    const known = usePipelineStore.getState().tasks[taskId]?.seq || null;
    const stream = openEventStream({
      url: `/api/sse/${encodeURIComponent(taskId)}`,
      events: TASK_STREAM_EVENTS,
      initialLastEventId: known,
      onMessage: dispatcher.handle,
      onStateChange: (next, message) => {
        setState(next);
        setError(message);
      },
      resumeAfterTimeout: () => isActive(taskId),
    });
    streamRef.current = stream;
    return () => {
      stream.close();
      dispatcher.dispose();
      streamRef.current = null;
    };
  }, [taskId, enabled]);

  // Gone idle after the server's timeout while nothing ran; a run that starts again needs the stream.
  const status = usePipelineStore((store) => (taskId ? selectRun(store, taskId)?.status : undefined));
  useEffect(() => {
    if (state === 'idle' && (status === 'running' || status === 'paused')) streamRef.current?.reconnect();
  }, [state, status]);

  const reconnect = useCallback(() => streamRef.current?.reconnect(), []);
  return { isConnected: state === 'open', error, state, reconnect };
}
