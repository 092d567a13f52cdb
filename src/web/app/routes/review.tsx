import { useParams } from 'react-router';
import { ErrorState } from '@/web/components/ui/error-state';
import { LoadingState } from '@/web/components/ui/spinner';
import { useMe } from '@/web/features/auth/api/get-me';
import { useApplyTaskStatus } from '@/web/features/board/api/apply-task-status';
import { useTask } from '@/web/features/board/api/get-task';
import { ReviewPage } from '@/web/features/pipeline/components/review-page/review-page';
import { useProjectEvents } from '@/web/features/pipeline/sse/use-project-events';

/** /projects/:projectId/tasks/:taskId/review — a task's review at full width, linkable. */
export function ReviewRoute() {
  const { projectId = '', taskId = '' } = useParams();
  const task = useTask(taskId);
  const me = useMe();
  const applyTaskStatus = useApplyTaskStatus(projectId);
  // Approving moves the task to Done: the page follows the board's moves.
  useProjectEvents(projectId, { onTaskStatus: applyTaskStatus });

  if (task.isPending) return <LoadingState label="Loading the task…" />;
  if (task.isError)
    return (
      <ErrorState
        title="Could not load the task"
        error={task.error}
        onRetry={() => void task.refetch()}
        retrying={task.isFetching}
      />
    );
  return (
    <>
      <title>{`Review: ${task.data.title} · AutoCoder`}</title>
      <ReviewPage projectId={projectId} task={task.data} userId={me.data?.id ?? null} />
    </>
  );
}
