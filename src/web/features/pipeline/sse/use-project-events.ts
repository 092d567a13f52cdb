import { useEffect, useRef } from 'react';
import type { CoordinationEvent } from '@/contracts/coordination';
import type { HeadMovedData } from '@/contracts/graph';
import type { LockWaitData, RunStepData, RunUpdateData, TaskStatusData } from '@/contracts/pipeline';
import { usePipelineStore } from '../stores/pipeline-store';
import { openEventStream } from './event-stream';

interface ProjectEventHandlers {
  /** A pipeline moved a task: the board moves its card. */
  onTaskStatus?: (event: TaskStatusData) => void;
  /** An agent took, was refused, released or lost locks (the activity feed, lock badges, the graph). */
  onCoordination?: (event: CoordinationEvent, id: number | null) => void;
  /** A branch of the project's repository moved (a push, an approval, a revert): the graph refetches. */
  onHeadMoved?: (event: HeadMovedData) => void;
}

const COORDINATION_EVENTS = ['lock-taken', 'lock-refused', 'lock-released', 'lock-expired'] as const;
const isCoordination = (type: string): type is CoordinationEvent['type'] =>
  (COORDINATION_EVENTS as readonly string[]).includes(type);

/**
 * A project's live feed (GET /api/sse/projects/:projectId): task moves go to `onTaskStatus`, run
 * summaries and steps (setup, check) to the pipeline store for the cards' phase badges, lock events to `onCoordination`, moved
 * branches to `onHeadMoved`. Live only: each page loads the current state itself.
 */
export function useProjectEvents(projectId: string | undefined, handlers: ProjectEventHandlers) {
  const handlersRef = useRef(handlers);
  useEffect(() => {
    handlersRef.current = handlers;
  });

  useEffect(() => {
    if (!projectId) return;
    const stream = openEventStream({
      url: `/api/sse/projects/${encodeURIComponent(projectId)}`,
      events: ['task-status', 'run-update', 'run-step', 'head-moved', 'lock-wait', ...COORDINATION_EVENTS],
      onMessage: (type, data, id) => {
        if (type === 'task-status') handlersRef.current.onTaskStatus?.(data as TaskStatusData);
        else if (type === 'head-moved') handlersRef.current.onHeadMoved?.(data as HeadMovedData);
        else if (type === 'run-update')
          usePipelineStore.getState().setRunSummary((data as RunUpdateData).run);
        else if (type === 'lock-wait') usePipelineStore.getState().setLockWait(data as LockWaitData);
        else if (type === 'run-step') usePipelineStore.getState().setRunStep(data as RunStepData);
        else if (isCoordination(type))
          handlersRef.current.onCoordination?.({ type, data } as CoordinationEvent, id);
      },
    });
    return () => stream.close();
  }, [projectId]);
}
