import { useEffect, useRef } from 'react';
import type { RunUpdateData, TaskStatusData } from '@/contracts/pipeline';
import { usePipelineStore } from '../stores/pipeline-store';
import { openEventStream } from './event-stream';

interface ProjectEventHandlers {
  /** A pipeline moved a task: the board moves its card. */
  onTaskStatus: (event: TaskStatusData) => void;
}

/**
 * The board's live feed (GET /api/sse/projects/:projectId): task moves go to `onTaskStatus`, run
 * summaries to the pipeline store for the cards' phase badges. Live only: the board loads the
 * current state itself.
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
      events: ['task-status', 'run-update'],
      onMessage: (type, data) => {
        if (type === 'task-status') handlersRef.current.onTaskStatus(data as TaskStatusData);
        else if (type === 'run-update')
          usePipelineStore.getState().setRunSummary((data as RunUpdateData).run);
      },
    });
    return () => stream.close();
  }, [projectId]);
}
