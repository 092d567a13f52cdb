import { type ReactNode, useMemo, useState } from 'react';
import type { RunDiff } from '@/contracts/diff';
import type { ReviewComment } from '@/contracts/review-comments';
import type { TaskStatus } from '@/contracts/tasks';
import { ErrorState } from '@/web/components/ui/error-state';
import { LoadingState } from '@/web/components/ui/spinner';
import { errorMessage, isApiError } from '@/web/lib/api-client';
import { useAddReviewComment } from '../../api/add-review-comment';
import { useDeleteReviewComment } from '../../api/delete-review-comment';
import { openComments, useReviewComments } from '../../api/get-review-comments';
import { useRunDiff } from '../../api/get-run-diff';
import type { CheckRun, PipelineRunState } from '../../stores/run-state';
import { buildDiffTree, treeOrder } from '../../utils/diff-tree';
import { bySeverity } from '../../utils/pin-notes';
import { OpenReviewLink } from '../review-page/open-review-link';
import { DiffFileTree } from './diff-file-tree';
import { type DiffMode, FileDiff } from './file-diff';
import { type CommentActions, FindingNote } from './line-notes';
import { ModeToggle } from './mode-toggle';
import { ReviewSummary } from './review-summary';

interface ReviewPanelProps {
  run: PipelineRunState;
  taskStatus: TaskStatus;
  /** The run's checks, for the summary's Checks tile (none: no tile). */
  checks?: readonly CheckRun[];
  /** Shown when the diff cannot be read (the branch is gone): what the run recorded of its files. */
  fallback: ReactNode;
}

/** Answers that mean "no diff to show", not "something broke". */
const NO_DIFF = new Set(['RUN_BRANCH_GONE', 'DIFF_NOT_READY']);

/**
 * The run's changes as git has them: a summary, the findings about no file, the changed files
 * as a tree, and one file's diff at a time with its findings and comments on their lines. In
 * Review, a line number opens a comment box; open comments go to the coder with the next
 * request for changes.
 */
export function ReviewPanel({ run, taskStatus, checks, fallback }: ReviewPanelProps) {
  const diff = useRunDiff(run.runId, run.headCommit, run.reviewScore);
  if (diff.isPending) return <LoadingState className="p-4" label="Loading the diff…" />;
  if (diff.isError) {
    const expected = isApiError(diff.error) && NO_DIFF.has(diff.error.code);
    return (
      <div className="flex flex-col gap-3" data-testid="review-panel-unavailable">
        {expected ? (
          <p role="note" className="text-sm text-zinc-600">
            {errorMessage(diff.error)}: the files below are what the run recorded.
          </p>
        ) : (
          <ErrorState
            className="p-4"
            title="Could not load the diff"
            error={diff.error}
            onRetry={() => void diff.refetch()}
            retrying={diff.isFetching}
          />
        )}
        {fallback}
      </div>
    );
  }
  return (
    <DiffReview
      run={run}
      diff={diff.data}
      checks={checks}
      commentable={run.status === 'passed' && taskStatus === 'review'}
    />
  );
}

function DiffReview({
  run,
  diff,
  checks,
  commentable,
}: {
  run: PipelineRunState;
  diff: RunDiff;
  checks?: readonly CheckRun[] | undefined;
  commentable: boolean;
}) {
  const comments = useReviewComments(run.runId);
  const addComment = useAddReviewComment(run.runId);
  const deleteComment = useDeleteReviewComment(run.runId);
  const [mode, setMode] = useState<DiffMode>('unified');
  const [selected, setSelected] = useState<string | null>(null);
  const [focus, setFocus] = useState<{ path: string; line: number; seq: number } | null>(null);

  const ordered = useMemo(() => treeOrder(buildDiffTree(diff.files)), [diff.files]);
  const current =
    ordered.find((file) => file.path === selected) ??
    ordered.find((file) => file.findings.some((f) => f.severity !== 'info')) ??
    ordered[0];
  const fileComments = useMemo(
    () => (comments.data ?? []).filter((comment: ReviewComment) => comment.path === current?.path),
    [comments.data, current?.path],
  );
  const open = openComments(comments.data).length;

  const actions: CommentActions | null =
    commentable && current
      ? {
          onAdd: async (line, body) => {
            try {
              await addComment.mutateAsync({ path: current.path, line, body });
              return true;
            } catch {
              // The mutation's toast says why; the box stays open with the text.
              return false;
            }
          },
          onDelete: (commentId) => deleteComment.mutate(commentId),
          deletingId: deleteComment.isPending ? (deleteComment.variables ?? null) : null,
        }
      : null;

  return (
    <div className="flex flex-col gap-3" data-testid="review-panel">
      <OpenReviewLink />
      <ReviewSummary run={run} stats={diff.stats} checks={checks} />
      {diff.generalFindings.length > 0 && (
        <section
          className="flex flex-col gap-1.5"
          data-testid="general-findings"
          aria-label="General findings"
        >
          {[...diff.generalFindings].sort(bySeverity).map((finding, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: findings have no id; their order is stable.
            <FindingNote key={index} finding={finding} where={finding.file ?? 'the change as a whole'} />
          ))}
        </section>
      )}
      {ordered.length === 0 ? (
        <p className="text-sm text-zinc-500" data-testid="review-no-changes">
          The branch changes no file.
        </p>
      ) : (
        <>
          <div className="flex flex-wrap items-center justify-between gap-2">
            <p className="text-xs text-zinc-600" data-testid="review-comment-hint">
              {commentHint(commentable, open)}
            </p>
            <ModeToggle mode={mode} onChange={setMode} testIdPrefix="diff-mode" />
          </div>
          <div className="max-h-72 overflow-y-auto rounded-md border border-zinc-200 p-1">
            <DiffFileTree
              files={diff.files}
              selectedPath={current?.path ?? null}
              onSelect={setSelected}
              onFinding={(path, line) => {
                setSelected(path);
                setFocus((previous) => ({ path, line, seq: (previous?.seq ?? 0) + 1 }));
              }}
            />
          </div>
          {current && (
            <FileDiff
              key={current.path}
              file={current}
              mode={mode}
              comments={fileComments}
              actions={actions}
              focus={focus?.path === current.path ? focus : null}
            />
          )}
        </>
      )}
    </div>
  );
}

function commentHint(commentable: boolean, open: number): string {
  if (!commentable) return 'Comments can be added while the task is in Review.';
  if (open === 0)
    return 'Click a line number to comment on it: comments go to the coder when you request changes.';
  return `${open === 1 ? '1 open comment goes' : `${open} open comments go`} to the coder with your next request for changes. Click a line number to add one.`;
}
