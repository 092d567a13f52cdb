import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useParams } from 'react-router';
import { ErrorState } from '@/web/components/ui/error-state';
import { LoadingState } from '@/web/components/ui/spinner';
import { useMe } from '@/web/features/auth/api/get-me';
import { useApplyTaskStatus } from '@/web/features/board/api/apply-task-status';
import { useTask } from '@/web/features/board/api/get-task';
import { getPipelineStatus, pipelineStatusKey } from '@/web/features/pipeline/api/get-pipeline-status';
import { getRunDiff, runDiffKey } from '@/web/features/pipeline/api/get-run-diff';
import { ReviewPage } from '@/web/features/pipeline/components/review-page/review-page';
import { useProjectEvents } from '@/web/features/pipeline/sse/use-project-events';

/** /projects/:projectId/tasks/:taskId/review — a task's review at full width, linkable. */
export function ReviewRoute() {
  const { projectId = '', taskId = '' } = useParams();
  const task = useTask(taskId);
  const me = useMe();
  const applyTaskStatus = useApplyTaskStatus(projectId);
  usePrefetchRunDiff(taskId);
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

/**
 * Asks for the task's run, then its diff, while the task itself loads: the page needs all three
 * before it can show the changed files, and would otherwise ask for them one after the other.
 * The page's own queries find them in the cache (or on their way).
 */
function usePrefetchRunDiff(taskId: string) {
  const queryClient = useQueryClient();
  useEffect(() => {
    let current = true;
    queryClient
      .fetchQuery({
        queryKey: pipelineStatusKey(taskId),
        queryFn: ({ signal }) => getPipelineStatus(taskId, signal),
      })
      .then((status) => {
        if (!current || !('runId' in status)) return;
        return queryClient.prefetchQuery({
          queryKey: runDiffKey(status.runId, status.headCommit, status.reviewScore),
          queryFn: ({ signal }) => getRunDiff(status.runId, signal),
          staleTime: Number.POSITIVE_INFINITY,
        });
      })
      // The page's own queries ask again and say what failed.
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [queryClient, taskId]);
}
