import { MessageSquare } from 'lucide-react';
import { memo } from 'react';
import type { DiffFile } from '@/contracts/diff';
import type { FindingSeverity } from '@/contracts/pipeline';
import type { ReviewComment } from '@/contracts/review-comments';
import { cn } from '@/web/lib/cn';
import { SeverityIcon } from '../review/severity';

/** A finding of the reviewer or a person's comment, on a line of a changed file (line 0: the file). */
export interface ReviewNote {
  key: string;
  kind: 'finding' | 'comment';
  path: string;
  line: number;
  severity: FindingSeverity | null;
  text: string;
  /** A comment already sent to the coder. */
  addressed: boolean;
}

/** Every finding and comment of the review, in the files' order: n/p walks them. */
export const ReviewNotesList = memo(function ReviewNotesList({
  notes,
  currentKey,
  onPick,
}: {
  notes: readonly ReviewNote[];
  currentKey: string | null;
  onPick: (index: number) => void;
}) {
  return (
    <section
      className="flex flex-col gap-1"
      aria-labelledby="review-notes-heading"
      data-testid="review-notes-list"
    >
      <h2 id="review-notes-heading" className="px-1 text-xs font-semibold text-zinc-700">
        Findings and comments ({notes.length})
      </h2>
      {notes.length === 0 ? (
        <p className="px-1 text-xs text-zinc-500">None on the changed lines.</p>
      ) : (
        <ol className="flex flex-col">
          {notes.map((note, index) => (
            <li key={note.key}>
              <button
                type="button"
                onClick={() => onPick(index)}
                className={cn(
                  'flex w-full items-start gap-1.5 rounded px-1 py-0.5 text-left text-xs hover:bg-zinc-100',
                  note.key === currentKey && 'bg-amber-100',
                )}
                data-testid="review-note-item"
                data-kind={note.kind}
                data-path={note.path}
                data-line={note.line}
                data-current={note.key === currentKey || undefined}
              >
                {note.severity ? (
                  <SeverityIcon severity={note.severity} className="mt-px size-3.5 shrink-0" />
                ) : (
                  <MessageSquare aria-hidden="true" className="mt-px size-3.5 shrink-0 text-sky-600" />
                )}
                <span className="min-w-0">
                  <span className="block truncate font-mono text-[11px] text-zinc-500">
                    {note.path}
                    {note.line > 0 ? `:${note.line}` : ''}
                  </span>
                  <span className={cn('line-clamp-2 text-zinc-700', note.addressed && 'text-zinc-400')}>
                    {note.text}
                  </span>
                </span>
              </button>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
});

/** The findings and comments of the files, in their order, each file's by line. */
export function notesOf(files: readonly DiffFile[], comments: readonly ReviewComment[]): ReviewNote[] {
  return files.flatMap((file) => {
    const findings = file.findings.map(
      (finding, index): ReviewNote => ({
        key: `f:${file.path}:${index}`,
        kind: 'finding',
        path: file.path,
        line: finding.line,
        severity: finding.severity,
        text: finding.message,
        addressed: false,
      }),
    );
    const said = comments
      .filter((comment) => comment.path === file.path)
      .map(
        (comment): ReviewNote => ({
          key: `c:${comment.id}`,
          kind: 'comment',
          path: file.path,
          line: comment.line,
          severity: null,
          text: comment.body,
          addressed: comment.addressedAt !== null,
        }),
      );
    return [...findings, ...said].sort((a, b) => a.line - b.line);
  });
}
