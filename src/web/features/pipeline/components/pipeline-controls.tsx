import { Check, MessageSquarePlus, Play, RotateCw, Square, Undo2 } from 'lucide-react';
import type { ReactNode } from 'react';
import { isActiveRun, retryCostsAttempt } from '@/contracts/run-lifecycle';
import type { TaskStatus } from '@/contracts/tasks';
import { Button } from '@/web/components/ui/button';
import type { PipelineRunState } from '../stores/run-state';
import { shortSha } from '../utils/run-labels';

export interface PipelinePending {
  isStarting: boolean;
  isRetrying: boolean;
  isCancelling: boolean;
  isApproving: boolean;
  isRequestingChanges: boolean;
  isReverting: boolean;
}

interface PipelineControlsProps {
  run: PipelineRunState | null;
  taskStatus: TaskStatus;
  pending: PipelinePending;
  onStart: () => void;
  onRetry: () => void;
  /** Asks for confirmation first. */
  onCancel: () => void;
  /** Asks for confirmation first. */
  onApprove: () => void;
  /** Opens the feedback dialog. */
  onRequestChanges: () => void;
  /** Takes an approval back (a revert commit on the default branch); asks for confirmation first. */
  onRevert: () => void;
}

const CAN_START: readonly TaskStatus[] = ['backlog', 'spec'];

/**
 * The actions that fit the run's state — Start (no run, failed, cancelled),
 * Cancel (running), Retry and Cancel (paused), Approve and Request changes (passed, in Review),
 * Revert approval (approved, in Done).
 */
export function PipelineControls({
  run,
  taskStatus,
  pending,
  onStart,
  onRetry,
  onCancel,
  onApprove,
  onRequestChanges,
  onRevert,
}: PipelineControlsProps) {
  const status = run?.status;
  let buttons: ReactNode;

  if (isActiveRun(status)) {
    const error = run?.errorDetails;
    // A budget pause waits for a higher budget: its Retry spends none of the run's retries.
    const retryLabel =
      error && retryCostsAttempt(error.type)
        ? `Retry (${error.retryCount + 1}/${error.maxRetries})`
        : 'Retry';
    buttons = (
      <>
        {status === 'paused' && (
          <Button
            variant="primary"
            size="sm"
            loading={pending.isRetrying}
            disabled={run?.errorDetails?.retryable === false}
            onClick={onRetry}
            data-testid="btn-retry-pipeline"
          >
            {!pending.isRetrying && <RotateCw aria-hidden="true" className="size-3.5" />}
            {retryLabel}
          </Button>
        )}
        <Button size="sm" loading={pending.isCancelling} onClick={onCancel} data-testid="btn-cancel-pipeline">
          {!pending.isCancelling && <Square aria-hidden="true" className="size-3" />}
          Cancel pipeline
        </Button>
      </>
    );
  } else if (status === 'passed' && taskStatus === 'review') {
    buttons = (
      <>
        <Button
          variant="primary"
          size="sm"
          loading={pending.isApproving}
          disabled={pending.isRequestingChanges}
          onClick={onApprove}
          data-testid="btn-approve-pipeline"
        >
          {!pending.isApproving && <Check aria-hidden="true" className="size-3.5" />}
          Approve & merge
        </Button>
        <Button
          size="sm"
          loading={pending.isRequestingChanges}
          disabled={pending.isApproving}
          onClick={onRequestChanges}
          data-testid="btn-request-changes"
        >
          {!pending.isRequestingChanges && <MessageSquarePlus aria-hidden="true" className="size-3.5" />}
          Request changes
        </Button>
      </>
    );
  } else if (status === 'passed' && taskStatus === 'done') {
    buttons = (
      <>
        <p className="flex items-center gap-1.5 text-xs text-emerald-700" data-testid="pipeline-merged">
          <Check aria-hidden="true" className="size-3.5" />
          Approved and merged
          {run?.mergeCommit && (
            <code
              className="font-mono text-[11px]"
              data-testid="pipeline-merge-commit"
              title={run.mergeCommit}
            >
              {shortSha(run.mergeCommit)}
            </code>
          )}
        </p>
        {run?.mergeCommit && (
          <Button
            size="sm"
            loading={pending.isReverting}
            onClick={onRevert}
            title="Adds a commit on the default branch that undoes this merge; the task goes back to Review"
            data-testid="btn-revert-approval"
          >
            {!pending.isReverting && <Undo2 aria-hidden="true" className="size-3.5" />}
            Revert approval
          </Button>
        )}
      </>
    );
  } else {
    const allowed = CAN_START.includes(taskStatus);
    buttons = (
      <Button
        variant="primary"
        size="sm"
        loading={pending.isStarting}
        disabled={!allowed}
        title={allowed ? undefined : 'A pipeline starts from Backlog or Spec'}
        onClick={onStart}
        data-testid="btn-start-pipeline"
      >
        {!pending.isStarting && <Play aria-hidden="true" className="size-3.5" />}
        {status === 'failed' || status === 'cancelled' ? 'Start again' : 'Start pipeline'}
      </Button>
    );
  }

  return (
    <div className="flex flex-wrap items-center gap-2" data-testid="pipeline-controls">
      {buttons}
    </div>
  );
}
