import { ArrowLeft } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'react-router';
import type { Task } from '@/contracts/tasks';
import { ErrorState } from '@/web/components/ui/error-state';
import { LoadingState } from '@/web/components/ui/spinner';
import { errorMessage, isApiError } from '@/web/lib/api-client';
import { usePipelineStatus } from '../../api/get-pipeline-status';
import { openComments, useReviewComments } from '../../api/get-review-comments';
import { usePipeline } from '../../hooks/use-pipeline';
import { useSSE } from '../../sse/use-sse';
import { useCheckRuns } from '../../stores/pipeline-store';
import type { PipelineRunState } from '../../stores/run-state';
import { ActionError } from '../action-error';
import { PipelineActionDialogs, type PipelineDialog } from '../pipeline-action-dialogs';
import { PipelineControls } from '../pipeline-controls';
import { ReviewChecks } from './review-checks';
import { DiffReview } from './review-diff';
import { useShownDiff } from './use-shown-diff';

interface ReviewPageProps {
  projectId: string;
  task: Task;
  /** The signed-in person: whose "viewed" marks these are (null: marks last as long as the page). */
  userId: string | null;
}

/** Answers that mean "no diff to show", not "something broke". */
const NO_DIFF = new Set(['RUN_BRANCH_GONE', 'DIFF_NOT_READY']);

/**
 * A task's review at full width (issue 27): every changed file stacked, a file tree with the
 * person's "viewed" marks, the unchanged lines around a change a click away, the findings and
 * comments in place and in a list, the check's result, and Approve / Request changes.
 */
export function ReviewPage({ projectId, task, userId }: ReviewPageProps) {
  const taskId = task.id;
  const pipeline = usePipeline(taskId);
  const status = usePipelineStatus(taskId);
  useSSE({ taskId });
  const run = pipeline.pipelineRun;
  const [dialog, setDialog] = useState<PipelineDialog>(null);
  const requestable = run?.status === 'passed' && task.status === 'review';
  const comments = useReviewComments(run?.runId ?? '', requestable);

  return (
    <div className="h-full overflow-y-auto bg-zinc-100" data-testid="review-page">
      <div className="flex flex-col gap-3 px-3 py-3 md:px-4">
        <header className="flex flex-wrap items-center gap-x-3 gap-y-2">
          <Link
            to={`/projects/${projectId}?task=${encodeURIComponent(taskId)}`}
            className="flex items-center gap-1 text-sm text-sky-700 hover:underline"
            data-testid="review-back"
          >
            <ArrowLeft aria-hidden="true" className="size-4" />
            Board
          </Link>
          <h1
            className="min-w-0 flex-1 truncate text-base font-semibold text-zinc-900"
            data-testid="review-title"
          >
            Review: {task.title}
          </h1>
          <PipelineControls
            run={run}
            taskStatus={task.status}
            pending={pipeline}
            onStart={() => void pipeline.startPipeline()}
            onRetry={() => void pipeline.retryPipeline()}
            onCancel={() => setDialog('cancel')}
            onApprove={() => setDialog('approve')}
            onRequestChanges={() => setDialog('request-changes')}
            onRevert={() => setDialog('revert')}
          />
        </header>
        {pipeline.actionError && <ActionError error={pipeline.actionError} />}
        {run ? (
          <RunReview run={run} task={task} userId={userId} commentable={requestable} />
        ) : status.isPending ? (
          <LoadingState label="Loading the run…" />
        ) : status.isError ? (
          <ErrorState
            title="Could not load the run"
            error={status.error}
            onRetry={() => void status.refetch()}
          />
        ) : (
          <p className="text-sm text-zinc-600" data-testid="review-no-run">
            This task has no run yet: there is nothing to review.
          </p>
        )}
      </div>
      <PipelineActionDialogs
        open={dialog}
        onClose={() => setDialog(null)}
        pipeline={pipeline}
        target={null}
        openComments={requestable ? openComments(comments.data).length : 0}
      />
    </div>
  );
}

function RunReview({
  run,
  task,
  userId,
  commentable,
}: {
  run: PipelineRunState;
  task: Task;
  userId: string | null;
  commentable: boolean;
}) {
  const { query: diff, shown } = useShownDiff(run);
  const checks = useCheckRuns(task.id);
  const checksView = <ReviewChecks checks={checks} running={run.status === 'running'} />;
  if (diff.isError) {
    const expected = isApiError(diff.error) && NO_DIFF.has(diff.error.code);
    return (
      <div className="flex flex-col gap-3" data-testid="review-page-unavailable">
        {expected ? (
          <p role="note" className="text-sm text-zinc-600">
            {errorMessage(diff.error)}.
          </p>
        ) : (
          <ErrorState
            title="Could not load the diff"
            error={diff.error}
            onRetry={() => void diff.refetch()}
            retrying={diff.isFetching}
          />
        )}
        {checksView}
      </div>
    );
  }
  if (!shown) return <LoadingState label="Loading the diff…" />;
  return (
    <DiffReview
      run={run}
      task={task}
      userId={userId}
      diff={shown}
      commentable={commentable}
      checks={checksView}
    />
  );
}
