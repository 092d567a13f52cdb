import { type FormEvent, useState } from 'react';
import { Button } from '@/web/components/ui/button';
import {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogTitle,
} from '@/web/components/ui/dialog';
import { Field } from '@/web/components/ui/field';
import { Textarea } from '@/web/components/ui/textarea';

const MAX_FEEDBACK = 5000;

interface RequestChangesDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  pending: boolean;
  /** Comments on lines not yet sent to the coder: they go with this request. */
  openComments: number;
  /** Files the last approval could not merge: the default branch is merged in and the coder resolves them. */
  conflictFiles: readonly string[];
  /** Resolves to whether the server accepted the request; the dialog closes when it did. */
  onSubmit: (feedback: string) => Promise<boolean>;
}

const commentsLine = (count: number) =>
  count === 1
    ? 'Your 1 open comment on a line goes with it.'
    : `Your ${count} open comments on lines go with it.`;

const conflictsLine = (count: number) =>
  `The default branch is merged in first, and the coder resolves the ${count === 1 ? 'conflicting file' : `${count} conflicting files`}.`;

/**
 * Feedback for the coder: the task goes back to Building and the agents address it. The open
 * line comments go along, and after a conflicting approval the conflicts are resolved; with
 * either, the feedback may be left empty.
 */
export function RequestChangesDialog({
  open,
  onOpenChange,
  pending,
  openComments,
  conflictFiles,
  onSubmit,
}: RequestChangesDialogProps) {
  const feedbackOptional = openComments > 0 || conflictFiles.length > 0;
  const [feedback, setFeedback] = useState('');
  const [error, setError] = useState<string | undefined>();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const text = feedback.trim();
    if (!text && !feedbackOptional)
      return setError('Say what should change, or comment on lines of the diff.');
    if (text.length > MAX_FEEDBACK) return setError(`At most ${MAX_FEEDBACK.toLocaleString()} characters.`);
    setError(undefined);
    if (await onSubmit(text)) {
      setFeedback('');
      onOpenChange(false);
    }
  };

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="max-w-lg">
        <DialogTitle>Request changes</DialogTitle>
        <DialogDescription>
          The coder works on your feedback on the same branch, then the reviewer checks again.
          {openComments > 0 && (
            <span className="mt-1 block font-medium text-zinc-800" data-testid="request-changes-comments">
              {commentsLine(openComments)}
            </span>
          )}
          {conflictFiles.length > 0 && (
            <span className="mt-1 block font-medium text-zinc-800" data-testid="request-changes-conflicts">
              {conflictsLine(conflictFiles.length)}
            </span>
          )}
        </DialogDescription>
        <form onSubmit={submit} className="mt-4 flex flex-col gap-3" noValidate>
          <Field
            label={feedbackOptional ? 'Anything else? (optional)' : 'What should change?'}
            error={error}
            hint={`${feedback.trim().length.toLocaleString()} / ${MAX_FEEDBACK.toLocaleString()}`}
          >
            <Textarea
              value={feedback}
              onChange={(event) => setFeedback(event.target.value)}
              rows={6}
              maxLength={MAX_FEEDBACK + 500}
              placeholder="e.g. Handle an empty list, and add a test for it."
              data-testid="request-changes-feedback"
              autoFocus
            />
          </Field>
          <DialogFooter className="mt-2">
            <DialogClose asChild>
              <Button>Cancel</Button>
            </DialogClose>
            <Button type="submit" variant="primary" loading={pending} data-testid="request-changes-submit">
              Send to the coder
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
