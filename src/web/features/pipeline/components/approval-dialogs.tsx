import { ConfirmDialog } from '@/web/components/ui/confirm-dialog';

export type ConfirmingApproval = 'approve' | 'revert' | null;

interface ApprovalDialogsProps {
  confirming: ConfirmingApproval;
  onClose: () => void;
  /** The run's branch. */
  branch: string | null;
  /** The project's default branch; null when not known. */
  target: string | null;
  approving: boolean;
  reverting: boolean;
  onApprove: () => void;
  onRevert: () => void;
}

/** Asks before an approval merges the run's branch, and before a revert undoes that merge. */
export function ApprovalDialogs({
  confirming,
  onClose,
  branch,
  target,
  approving,
  reverting,
  onApprove,
  onRevert,
}: ApprovalDialogsProps) {
  const source = branch ?? 'the run’s branch';
  const into = target ?? 'the default branch';
  const close = (open: boolean) => {
    if (!open) onClose();
  };
  return (
    <>
      <ConfirmDialog
        open={confirming === 'approve'}
        onOpenChange={close}
        title={`Merge ${source} into ${into}?`}
        description={`The run’s commits go onto ${into} and the task moves to Done. Revert approval undoes it later with a commit of its own.`}
        confirmLabel="Approve & merge"
        dismissLabel="Not yet"
        confirmTestId="confirm-approve-pipeline"
        pending={approving}
        onConfirm={onApprove}
      />
      <ConfirmDialog
        open={confirming === 'revert'}
        onOpenChange={close}
        title={`Revert the merge of ${source} from ${into}?`}
        description={`A new commit on ${into} undoes the merge; the task goes back to Review, where it can be approved again.`}
        confirmLabel="Revert approval"
        dismissLabel="Keep it merged"
        confirmTestId="confirm-revert-approval"
        pending={reverting}
        onConfirm={onRevert}
      />
    </>
  );
}
