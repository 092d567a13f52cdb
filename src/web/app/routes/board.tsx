import { useMemo } from 'react';
import { useParams } from 'react-router';
import { ActivityFeed } from '@/web/features/activity/components/activity-feed';
import { ActivitySheetButton } from '@/web/features/activity/components/activity-sheet';
import { TaskLockBadge } from '@/web/features/activity/components/task-lock-badge';
import { useActivityStore } from '@/web/features/activity/stores/activity-store';
import { useApplyTaskStatus } from '@/web/features/board/api/apply-task-status';
import type { BoardSlots } from '@/web/features/board/components/board-slots';
import { BoardView } from '@/web/features/board/components/board-view';
import { PipelinePanel } from '@/web/features/pipeline/components/pipeline-panel';
import { TaskPhaseBadge } from '@/web/features/pipeline/components/task-phase-badge';
import { useTaskRunActive } from '@/web/features/pipeline/hooks/use-task-run-active';
import { useProjectEvents } from '@/web/features/pipeline/sse/use-project-events';
import { useProjects } from '@/web/features/projects/api/get-projects';
import { TaskServices } from '@/web/features/services/components/task-services';

/**
 * The board with the pipeline and the activity feed plugged in: live card moves, phase and lock
 * badges, the drawer's Pipeline section (with the project's token budget and, in Review, the run's
 * Services), and the project's live activity beside the columns (from `lg` up; below, an Activity
 * button in the board's toolbar opens it as a sheet).
 */
export function BoardRoute() {
  const { projectId = '' } = useParams();
  const applyTaskStatus = useApplyTaskStatus(projectId);
  const applyActivity = useActivityStore((state) => state.apply);
  const project = useProjects().data?.find((candidate) => candidate.id === projectId);
  const tokenBudget = project?.taskTokenBudget ?? null;
  const defaultBranch = project?.defaultBranch ?? null;
  useProjectEvents(projectId, {
    onTaskStatus: applyTaskStatus,
    onCoordination: (event, id) => applyActivity(projectId, event, id),
  });

  const slots = useMemo<BoardSlots>(
    () => ({
      cardBadges: (task) => (
        <>
          <TaskPhaseBadge taskId={task.id} taskStatus={task.status} run={task.run} />
          <TaskLockBadge taskId={task.id} />
        </>
      ),
      taskSection: (task) => (
        <>
          <PipelinePanel
            key={task.id}
            taskId={task.id}
            taskStatus={task.status}
            tokenBudget={tokenBudget}
            targetBranch={defaultBranch}
          />
          {/* In Review, the run's branch can be run and previewed before approving. */}
          {task.status === 'review' && (
            <TaskServices key={`services-${task.id}`} projectId={projectId} taskId={task.id} />
          )}
        </>
      ),
      useTaskRunActive,
      toolbar: <ActivitySheetButton projectId={projectId} />,
    }),
    [projectId, tokenBudget, defaultBranch],
  );

  return (
    <div className="flex h-full min-h-0">
      <div className="min-w-0 flex-1">
        <BoardView
          key={projectId}
          projectId={projectId}
          slots={slots}
          projectCoderEngine={project?.coderEngine ?? null}
        />
      </div>
      <ActivityFeed projectId={projectId} />
    </div>
  );
}
