import { useMemo } from 'react';
import { useParams } from 'react-router';
import { useApplyTaskStatus } from '@/web/features/board/api/apply-task-status';
import type { BoardSlots } from '@/web/features/board/components/board-slots';
import { BoardView } from '@/web/features/board/components/board-view';
import { PipelinePanel } from '@/web/features/pipeline/components/pipeline-panel';
import { TaskPhaseBadge } from '@/web/features/pipeline/components/task-phase-badge';
import { useProjectEvents } from '@/web/features/pipeline/sse/use-project-events';

/** The board with the pipeline plugged in: live card moves and phase badges, the drawer's Pipeline section. */
export function BoardRoute() {
  const { projectId = '' } = useParams();
  const applyTaskStatus = useApplyTaskStatus(projectId);
  useProjectEvents(projectId, { onTaskStatus: applyTaskStatus });

  const slots = useMemo<BoardSlots>(
    () => ({
      cardBadges: (task) => <TaskPhaseBadge taskId={task.id} taskStatus={task.status} run={task.run} />,
      taskSection: (task) => <PipelinePanel key={task.id} taskId={task.id} taskStatus={task.status} />,
    }),
    [],
  );

  return <BoardView key={projectId} projectId={projectId} slots={slots} />;
}
