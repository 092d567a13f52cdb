import { MessageSquare, Trash2 } from 'lucide-react';
import { type FormEvent, useState } from 'react';
import type { DiffFinding } from '@/contracts/diff';
import { REVIEW_COMMENT_MAX_CHARS, type ReviewComment } from '@/contracts/review-comments';
import { Button } from '@/web/components/ui/button';
import { Textarea } from '@/web/components/ui/textarea';
import { cn } from '@/web/lib/cn';
import { formatDateTime } from '@/web/lib/format';
import type { LineNotes } from '../../utils/pin-notes';
import { SEVERITY, SeverityIcon } from './severity';

/** A finding of the reviewer, as text: whatever the model wrote is never markup. */
export function FindingNote({ finding, where }: { finding: DiffFinding; where?: string }) {
  return (
    <div
      className={cn(
        'flex items-start gap-2 rounded-md border px-2.5 py-1.5 text-xs',
        SEVERITY[finding.severity].box,
      )}
      data-testid="diff-finding"
      data-severity={finding.severity}
      data-line={finding.line}
    >
      <SeverityIcon severity={finding.severity} className="mt-px" />
      <div className="min-w-0">
        {where && <p className="font-mono text-[11px] break-all opacity-70">{where}</p>}
        <p className="break-words whitespace-pre-wrap">{finding.message}</p>
      </div>
    </div>
  );
}

export interface CommentActions {
  /** Resolves to whether the server kept the comment. */
  onAdd: (line: number, body: string) => Promise<boolean>;
  onDelete: (commentId: string) => void;
  deletingId: string | null;
}

export function CommentNote({
  comment,
  onDelete,
  deleting,
}: {
  comment: ReviewComment;
  onDelete: ((commentId: string) => void) | null;
  deleting: boolean;
}) {
  const open = comment.addressedAt === null;
  return (
    <div
      className={cn(
        'flex items-start gap-2 rounded-md border px-2.5 py-1.5 text-xs',
        open ? 'border-zinc-300 bg-white text-zinc-900' : 'border-zinc-200 bg-zinc-50 text-zinc-500',
      )}
      data-testid="diff-comment"
      data-line={comment.line}
      data-open={open}
    >
      <MessageSquare aria-hidden="true" className="mt-px size-3.5 shrink-0 text-zinc-400" />
      <div className="min-w-0 flex-1">
        <p className="text-[11px] text-zinc-500">
          Your comment{comment.line > 0 && ` on line ${comment.line}`} · {formatDateTime(comment.createdAt)}
          {!open && ' · sent to the coder'}
        </p>
        <p className="break-words whitespace-pre-wrap">{comment.body}</p>
      </div>
      {open && onDelete && (
        <Button
          size="icon-sm"
          variant="ghost"
          aria-label={`Delete comment on line ${comment.line}`}
          loading={deleting}
          onClick={() => onDelete(comment.id)}
          data-testid="diff-comment-delete"
        >
          {!deleting && <Trash2 aria-hidden="true" className="size-3.5" />}
        </Button>
      )}
    </div>
  );
}

export function CommentComposer({
  line,
  onSubmit,
  onCancel,
}: {
  line: number;
  onSubmit: (body: string) => Promise<boolean>;
  onCancel: () => void;
}) {
  const [body, setBody] = useState('');
  const [pending, setPending] = useState(false);
  const text = body.trim();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!text || text.length > REVIEW_COMMENT_MAX_CHARS) return;
    setPending(true);
    const kept = await onSubmit(text);
    setPending(false);
    if (kept) onCancel();
  };
  return (
    <form
      onSubmit={submit}
      className="flex flex-col gap-2 rounded-md border border-sky-200 bg-sky-50/50 p-2"
      data-testid="diff-comment-form"
    >
      <Textarea
        value={body}
        onChange={(event) => setBody(event.target.value)}
        rows={3}
        maxLength={REVIEW_COMMENT_MAX_CHARS}
        aria-label={`Comment on line ${line}`}
        placeholder="What should change on this line?"
        data-testid="diff-comment-input"
        autoFocus
      />
      <div className="flex items-center justify-end gap-2">
        <Button size="sm" variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
        <Button
          type="submit"
          size="sm"
          variant="primary"
          loading={pending}
          disabled={!text}
          data-testid="diff-comment-submit"
        >
          Add comment
        </Button>
      </div>
    </form>
  );
}

/** What is said about one line, under it: findings first, then comments, then a comment being written. */
export function LineNotesView({
  line,
  notes,
  composing,
  actions,
  onCloseComposer,
}: {
  line: number;
  notes: LineNotes | undefined;
  composing: boolean;
  actions: CommentActions | null;
  onCloseComposer: () => void;
}) {
  return (
    <div className="flex flex-col gap-1.5 px-2 py-1.5 font-sans" data-testid="line-notes" data-line={line}>
      {notes?.findings.map((finding, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: findings have no id; their order is stable.
        <FindingNote key={index} finding={finding} />
      ))}
      {notes?.comments.map((comment) => (
        <CommentNote
          key={comment.id}
          comment={comment}
          onDelete={actions?.onDelete ?? null}
          deleting={actions?.deletingId === comment.id}
        />
      ))}
      {composing && actions && (
        <CommentComposer
          line={line}
          onSubmit={(body) => actions.onAdd(line, body)}
          onCancel={onCloseComposer}
        />
      )}
    </div>
  );
}
