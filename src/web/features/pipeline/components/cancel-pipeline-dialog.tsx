import { ConfirmDialog } from '@/web/components/ui/confirm-dialog';

interface CancelPipelineDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  pending: boolean;
  onConfirm: () => void;
}

/** Asks before stopping a run: the agents stop at once and the task goes back to Backlog. */
export function CancelPipelineDialog({ open, onOpenChange, pending, onConfirm }: CancelPipelineDialogProps) {
  return (
    <ConfirmDialog
      open={open}
      onOpenChange={onOpenChange}
      title="Cancel this pipeline?"
      description="The agents stop now and the task goes back to Backlog. Commits made so far stay on the run's branch."
      confirmLabel="Cancel pipeline"
      dismissLabel="Keep running"
      confirmTestId="confirm-cancel-pipeline"
      pending={pending}
      onConfirm={onConfirm}
    />
  );
}
