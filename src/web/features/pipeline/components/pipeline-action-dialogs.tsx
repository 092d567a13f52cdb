import type { usePipeline } from '../hooks/use-pipeline';
import { ApprovalDialogs } from './approval-dialogs';
import { CancelPipelineDialog } from './cancel-pipeline-dialog';
import { RequestChangesDialog } from './request-changes-dialog';

/** Which of a run's actions is asking the person first, if any. */
export type PipelineDialog = 'cancel' | 'approve' | 'revert' | 'request-changes' | null;

interface PipelineActionDialogsProps {
  open: PipelineDialog;
  onClose: () => void;
  pipeline: ReturnType<typeof usePipeline>;
  /** The project's default branch (the merge's target); null when not known. */
  target: string | null;
  /** Comments on lines that go with a request for changes. */
  openComments: number;
}

/**
 * The dialogs of a run's actions, as the drawer's panel and the review page both show them: Cancel,
 * Approve and Revert ask first; Request changes asks for the feedback (and names the files the last
 * approval could not merge).
 */
export function PipelineActionDialogs({
  open,
  onClose,
  pipeline,
  target,
  openComments,
}: PipelineActionDialogsProps) {
  const error = pipeline.actionError;
  const conflictFiles = error?.action === 'approve' && error.code === 'MERGE_CONFLICT' ? error.files : [];
  return (
    <>
      <CancelPipelineDialog
        open={open === 'cancel'}
        onOpenChange={(next) => {
          if (!next) onClose();
        }}
        pending={pipeline.isCancelling}
        onConfirm={() => void pipeline.cancelPipeline().then(onClose)}
      />
      <ApprovalDialogs
        confirming={open === 'approve' || open === 'revert' ? open : null}
        onClose={onClose}
        branch={pipeline.pipelineRun?.branch ?? null}
        target={target}
        approving={pipeline.isApproving}
        reverting={pipeline.isReverting}
        onApprove={() => void pipeline.approvePipeline().finally(onClose)}
        onRevert={() => void pipeline.revertApproval().finally(onClose)}
      />
      <RequestChangesDialog
        open={open === 'request-changes'}
        onOpenChange={(next) => {
          if (!next) onClose();
        }}
        pending={pipeline.isRequestingChanges}
        openComments={openComments}
        conflictFiles={conflictFiles}
        onSubmit={pipeline.requestChanges}
      />
    </>
  );
}
