import type { ReactNode } from 'react';
import { Button } from './button';
import { Dialog, DialogClose, DialogContent, DialogDescription, DialogFooter, DialogTitle } from './dialog';

interface ConfirmDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description: ReactNode;
  confirmLabel?: string;
  /** The label of the button that closes the dialog without acting. */
  dismissLabel?: string;
  confirmTestId?: string;
  pending?: boolean;
  onConfirm: () => void;
}

/** Asks before a destructive action. The confirm button carries data-testid="confirm-delete" unless told otherwise. */
export function ConfirmDialog({
  open,
  onOpenChange,
  title,
  description,
  confirmLabel = 'Delete',
  dismissLabel = 'Cancel',
  confirmTestId = 'confirm-delete',
  pending = false,
  onConfirm,
}: ConfirmDialogProps) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent role="alertdialog" className="max-w-sm">
        <DialogTitle>{title}</DialogTitle>
        <DialogDescription>{description}</DialogDescription>
        <DialogFooter>
          <DialogClose asChild>
            <Button>{dismissLabel}</Button>
          </DialogClose>
          <Button variant="danger" loading={pending} onClick={onConfirm} data-testid={confirmTestId}>
            {confirmLabel}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
