import { FileWarning } from 'lucide-react';
import { type ReactNode, useEffect, useMemo, useRef, useState } from 'react';
import type { DiffFile } from '@/contracts/diff';
import type { ReviewComment } from '@/contracts/review-comments';
import { Button } from '@/web/components/ui/button';
import { useHighlightedPatch } from '../../hooks/use-highlighted-patch';
import {
  anchorLine,
  type SplitRow,
  splitAnchor,
  splitRows,
  type UnifiedRow,
  unifiedRows,
} from '../../utils/diff-rows';
import { parsePatch, patchLines } from '../../utils/parse-patch';
import { pinNotes } from '../../utils/pin-notes';
import { FileStatusBadge, LineStats } from './diff-file-tree';
import { SplitTable, UnifiedTable } from './diff-table';
import { type CommentActions, CommentNote, FindingNote } from './line-notes';

export type DiffMode = 'unified' | 'split';

/** Rows rendered at first, and added by each "Show more": a long file stays quick to open. */
export const ROWS_PER_PAGE = 2000;

interface FileDiffProps {
  file: DiffFile;
  mode: DiffMode;
  /** The comments on this file. */
  comments: readonly ReviewComment[];
  /** Null when comments cannot be added. */
  actions: CommentActions | null;
  /** A line to bring into view (a finding chosen in the tree); `seq` tells one request from the next. */
  focus: { line: number; seq: number } | null;
  /** Rows shown at first and added by each "Show more". */
  rowsPerPage?: number;
}

function rowAnchor(row: UnifiedRow | SplitRow, deleted: boolean): number | null {
  if (row.type === 'hunk') return null;
  return row.type === 'line' ? anchorLine(row.line, deleted) : splitAnchor(row, deleted);
}

/** One changed file: its patch as unified or side-by-side rows, with findings and comments on their lines. */
export function FileDiff({
  file,
  mode,
  comments,
  actions,
  focus,
  rowsPerPage = ROWS_PER_PAGE,
}: FileDiffProps) {
  const deleted = file.status === 'deleted';
  const hunks = useMemo(() => parsePatch(file.patch), [file.patch]);
  const pinned = useMemo(
    () => pinNotes(patchLines(hunks), deleted, file.findings, comments),
    [hunks, deleted, file.findings, comments],
  );
  const split = useMemo(() => (mode === 'split' ? splitRows(hunks) : null), [hunks, mode]);
  const unified = useMemo(() => (mode === 'split' ? null : unifiedRows(hunks)), [hunks, mode]);
  const rows: readonly (UnifiedRow | SplitRow)[] = split ?? unified ?? [];
  const highlighted = useHighlightedPatch(hunks, file.language);
  const [limit, setLimit] = useState(rowsPerPage);
  const [composingLine, setComposingLine] = useState<number | null>(null);
  const container = useRef<HTMLDivElement>(null);
  const handled = useRef<number | null>(null);

  useEffect(() => {
    if (!focus || handled.current === focus.seq) return;
    const index = rows.findIndex((row) => rowAnchor(row, deleted) === focus.line);
    if (index >= limit) {
      setLimit(index + rowsPerPage);
      return;
    }
    handled.current = focus.seq;
    const target =
      index >= 0
        ? container.current?.querySelector(`[data-anchor="${focus.line}"]`)
        : container.current?.querySelector('[data-testid="file-notes"]');
    target?.scrollIntoView?.({ block: 'center', behavior: 'smooth' });
  }, [focus, rows, limit, deleted, rowsPerPage]);

  const unplaced = pinned.unplaced.findings.length + pinned.unplaced.comments.length;
  const tableProps = {
    deletedFile: deleted,
    highlighted,
    notes: pinned.byLine,
    composingLine,
    onCompose: actions && !deleted ? setComposingLine : null,
    actions,
    onCloseComposer: () => setComposingLine(null),
    focusLine: focus?.line ?? null,
  };

  return (
    <section
      ref={container}
      className="flex min-w-0 flex-col overflow-hidden rounded-md border border-zinc-200 bg-white"
      data-testid="file-diff"
      data-path={file.path}
      aria-label={`Changes to ${file.path}`}
    >
      <header className="flex flex-wrap items-center gap-2 border-b border-zinc-200 bg-zinc-50 px-3 py-1.5">
        <FileStatusBadge status={file.status} />
        <h5 className="min-w-0 flex-1 font-mono text-xs break-all text-zinc-800">
          {file.oldPath && <span className="text-zinc-500">{file.oldPath} → </span>}
          {file.path}
        </h5>
        <span className="text-[11px] text-zinc-400">{file.language}</span>
        {!file.binary && <LineStats additions={file.additions} deletions={file.deletions} />}
      </header>

      {unplaced > 0 && (
        <div className="flex flex-col gap-1.5 border-b border-zinc-200 p-2" data-testid="file-notes">
          {pinned.unplaced.findings.map((finding, index) => (
            <FindingNote
              // biome-ignore lint/suspicious/noArrayIndexKey: findings have no id; their order is stable.
              key={index}
              finding={finding}
              where={
                finding.line > 0 ? `line ${finding.line} (not among the changed lines)` : 'the whole file'
              }
            />
          ))}
          {pinned.unplaced.comments.map((comment) => (
            <CommentNote
              key={comment.id}
              comment={comment}
              onDelete={actions?.onDelete ?? null}
              deleting={actions?.deletingId === comment.id}
            />
          ))}
        </div>
      )}

      {file.binary ? (
        <FileNote>Binary file: its contents are not shown.</FileNote>
      ) : file.truncated ? (
        <FileNote>
          This file changed by {(file.additions + file.deletions).toLocaleString()} lines, too many to show
          here. Its changes are on the run’s branch.
        </FileNote>
      ) : hunks.length === 0 ? (
        <FileNote>No changed lines (an empty file, or only its mode changed).</FileNote>
      ) : (
        <div className="overflow-x-auto">
          {split ? (
            <SplitTable rows={split.slice(0, limit)} {...tableProps} />
          ) : (
            <UnifiedTable rows={(unified ?? []).slice(0, limit)} {...tableProps} />
          )}
          {rows.length > limit && (
            <div className="flex items-center justify-center gap-3 border-t border-zinc-200 bg-zinc-50 p-2 text-xs text-zinc-600">
              {(rows.length - limit).toLocaleString()} more lines
              <Button
                size="sm"
                onClick={() => setLimit((current) => current + rowsPerPage)}
                data-testid="diff-show-more"
              >
                Show more
              </Button>
            </div>
          )}
        </div>
      )}
    </section>
  );
}

function FileNote({ children }: { children: ReactNode }) {
  return (
    <p
      role="note"
      className="flex items-center gap-2 px-3 py-3 text-xs text-zinc-600"
      data-testid="file-diff-note"
    >
      <FileWarning aria-hidden="true" className="size-4 shrink-0 text-zinc-400" />
      <span>{children}</span>
    </p>
  );
}
