import {
  ChevronDown,
  ChevronRight,
  ChevronsDownUp,
  ChevronsUpDown,
  FileWarning,
  FoldVertical,
} from 'lucide-react';
import { memo, type ReactNode, useCallback, useMemo, useState } from 'react';
import type { DiffFile } from '@/contracts/diff';
import type { ReviewComment } from '@/contracts/review-comments';
import { errorMessage } from '@/web/lib/api-client';
import { cn } from '@/web/lib/cn';
import { useDiffFile } from '../../api/get-diff-file';
import { anchorLine } from '../../utils/diff-rows';
import {
  EXPAND_STEP,
  expandedSegments,
  fileLines,
  type GapReveal,
  revealMore,
  type Segment,
} from '../../utils/expand-context';
import { parsePatch } from '../../utils/parse-patch';
import { pinNotes } from '../../utils/pin-notes';
import { FileStatusBadge, LineStats } from '../review/diff-file-tree';
import type { DiffMode } from '../review/file-diff';
import { type CommentActions, CommentNote, FindingNote } from '../review/line-notes';
import { type Block, BlockTable, blocksOf, ROW_PX, splitRowCount, type TableProps } from './diff-blocks';
import { LazyBlock } from './lazy-block';

interface ReviewFileProps {
  file: DiffFile;
  runId: string;
  headCommit: string | null;
  mode: DiffMode;
  comments: readonly ReviewComment[];
  actions: CommentActions | null;
  viewed: boolean;
  onViewed: (file: DiffFile, viewed: boolean) => void;
  collapsed: boolean;
  onCollapsed: (path: string, collapsed: boolean) => void;
  /** The file j/k is on. */
  current: boolean;
  /** The line n/p is on, in this file. */
  focusLine: number | null;
}

/** Unchanged lines around a change can be read for a file that exists on both sides. */
const expandable = (file: DiffFile) =>
  !file.binary && !file.truncated && (file.status === 'modified' || file.status === 'renamed');

/**
 * One changed file on the review page: a header with its "viewed" mark, and its diff at full
 * width (lines do not wrap; long ones scroll), with the unchanged lines around each hunk a click
 * away, read from the file at the run's head.
 */
export const ReviewFile = memo(function ReviewFile({
  file,
  runId,
  headCommit,
  mode,
  comments,
  actions,
  viewed,
  onViewed,
  collapsed,
  onCollapsed,
  current,
  focusLine,
}: ReviewFileProps) {
  const deleted = file.status === 'deleted';
  const hunks = useMemo(() => parsePatch(file.patch), [file.patch]);
  const [reveals, setReveals] = useState<Record<number, GapReveal>>({});
  const [wantContent, setWantContent] = useState(false);
  const canExpand = expandable(file) && hunks.length > 0;
  const content = useDiffFile(runId, headCommit, file.path, wantContent && canExpand);
  const lines = useMemo(
    () => (content.data?.after != null ? fileLines(content.data.after, content.data.truncated) : null),
    [content.data],
  );
  const segments = useMemo(() => expandedSegments(hunks, reveals, lines), [hunks, reveals, lines]);
  const parts = useMemo(
    () =>
      segments.map((segment) =>
        segment.type === 'gap' ? segment : { ...segment, blocks: blocksOf(segment.key, segment.lines) },
      ),
    [segments],
  );
  const allLines = useMemo(
    () => segments.flatMap((segment) => (segment.type === 'lines' ? segment.lines : [])),
    [segments],
  );
  const pinned = useMemo(
    () => pinNotes(allLines, deleted, file.findings, comments),
    [allLines, deleted, file.findings, comments],
  );
  const [composingLine, setComposingLine] = useState<number | null>(null);
  const closeComposer = useCallback(() => setComposingLine(null), []);

  const expand = (gap: number, direction: 'up' | 'down' | 'all') => {
    setWantContent(true);
    setReveals((current) => ({ ...current, [gap]: revealMore(current[gap], direction) }));
  };

  // The same object while nothing in it changes: blocks already drawn are not drawn again.
  const tableProps = useMemo<TableProps>(
    () => ({
      deletedFile: deleted,
      notes: pinned.byLine,
      composingLine,
      onCompose: actions && !deleted ? setComposingLine : null,
      actions,
      onCloseComposer: closeComposer,
      focusLine,
      nowrap: true,
    }),
    [deleted, pinned.byLine, composingLine, actions, closeComposer, focusLine],
  );
  const holds = (block: Block, line: number | null) =>
    line !== null && block.lines.some((entry) => anchorLine(entry, deleted) === line);
  const unplaced = pinned.unplaced.findings.length + pinned.unplaced.comments.length;
  const Chevron = collapsed ? ChevronRight : ChevronDown;

  return (
    <section
      className={cn(
        'flex min-w-0 scroll-mt-2 flex-col rounded-md border bg-white',
        current ? 'border-sky-400 ring-1 ring-sky-300' : 'border-zinc-200',
      )}
      data-testid="review-file"
      data-path={file.path}
      data-viewed={viewed}
      data-collapsed={collapsed}
      data-current={current || undefined}
      aria-label={`Changes to ${file.path}`}
    >
      <header className="sticky top-0 z-10 flex flex-wrap items-center gap-2 rounded-t-md border-b border-zinc-200 bg-zinc-50 px-3 py-1.5">
        <button
          type="button"
          onClick={() => onCollapsed(file.path, !collapsed)}
          aria-expanded={!collapsed}
          aria-label={collapsed ? `Show ${file.path}` : `Hide ${file.path}`}
          className="rounded p-0.5 text-zinc-500 hover:bg-zinc-200"
          data-testid="review-file-toggle"
        >
          <Chevron aria-hidden="true" className="size-4" />
        </button>
        <FileStatusBadge status={file.status} />
        <h3 className="min-w-0 flex-1 font-mono text-xs break-all text-zinc-800">
          {file.oldPath && <span className="text-zinc-500">{file.oldPath} → </span>}
          {file.path}
        </h3>
        {!file.binary && <LineStats additions={file.additions} deletions={file.deletions} />}
        <label className="flex cursor-pointer items-center gap-1.5 rounded border border-zinc-300 bg-white px-2 py-0.5 text-xs text-zinc-700">
          <input
            type="checkbox"
            checked={viewed}
            onChange={(event) => onViewed(file, event.target.checked)}
            data-testid={`file-viewed-${file.path}`}
          />
          Viewed
        </label>
      </header>

      {!collapsed && (
        <>
          {unplaced > 0 && (
            <div className="flex flex-col gap-1.5 border-b border-zinc-200 p-2" data-testid="file-notes">
              {pinned.unplaced.findings.map((finding, index) => (
                <FindingNote
                  // biome-ignore lint/suspicious/noArrayIndexKey: findings have no id; their order is stable.
                  key={index}
                  finding={finding}
                  where={
                    finding.line > 0 ? `line ${finding.line} (not among the lines shown)` : 'the whole file'
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
              This file changed by {(file.additions + file.deletions).toLocaleString()} lines, too many to
              show here. Its changes are on the run’s branch.
            </FileNote>
          ) : hunks.length === 0 ? (
            <FileNote>No changed lines (an empty file, or only its mode changed).</FileNote>
          ) : (
            <div className="overflow-x-auto" data-testid="review-file-body">
              {parts.map((part) =>
                part.type === 'gap' ? (
                  <Expander
                    key={part.key}
                    segment={part}
                    canExpand={canExpand && !content.isError}
                    loading={wantContent && content.isPending}
                    onExpand={(direction) => expand(part.gap, direction)}
                  />
                ) : (
                  part.blocks.map((block) => (
                    <LazyBlock
                      key={block.key}
                      estimateHeight={
                        ROW_PX * (mode === 'split' ? splitRowCount(block.lines) : block.lines.length)
                      }
                      force={holds(block, focusLine) || holds(block, composingLine)}
                    >
                      <BlockTable
                        lines={block.lines}
                        mode={mode}
                        language={file.language}
                        tableProps={tableProps}
                      />
                    </LazyBlock>
                  ))
                ),
              )}
              {content.isError && (
                <p role="alert" className="px-3 py-1 text-xs text-red-700" data-testid="expand-error">
                  Could not read the file: {errorMessage(content.error)}
                </p>
              )}
            </div>
          )}
        </>
      )}
    </section>
  );
});

function Expander({
  segment,
  canExpand,
  loading,
  onExpand,
}: {
  segment: Extract<Segment, { type: 'gap' }>;
  canExpand: boolean;
  loading: boolean;
  onExpand: (direction: 'up' | 'down' | 'all') => void;
}) {
  const { hidden, position } = segment;
  const show = canExpand && hidden > 0;
  const few = hidden <= EXPAND_STEP;
  const button = (direction: 'up' | 'down' | 'all', label: string, icon: ReactNode) => (
    <button
      type="button"
      disabled={loading}
      onClick={() => onExpand(direction)}
      title={label}
      aria-label={label}
      className="flex items-center rounded px-1.5 py-0.5 text-sky-700 hover:bg-sky-100 disabled:opacity-50"
      data-testid={`expand-${direction}`}
      data-gap={segment.gap}
    >
      {icon}
    </button>
  );
  return (
    <div
      className="sticky left-0 flex min-w-0 items-center gap-2 border-y border-sky-100 bg-sky-50/70 px-2 py-0.5 font-mono text-xs text-sky-800"
      data-testid="diff-expander"
      data-gap={segment.gap}
      data-hidden={Number.isFinite(hidden) ? hidden : undefined}
    >
      {show && (
        <span className="flex items-center gap-0.5">
          {few ? (
            button(
              'all',
              `Show ${hidden} hidden lines`,
              <FoldVertical aria-hidden="true" className="size-3.5" />,
            )
          ) : (
            <>
              {position !== 'top' &&
                button(
                  'down',
                  `Show ${EXPAND_STEP} more lines below`,
                  <ChevronsUpDown aria-hidden="true" className="size-3.5 rotate-180" />,
                )}
              {position !== 'bottom' &&
                button(
                  'up',
                  `Show ${EXPAND_STEP} more lines above`,
                  <ChevronsDownUp aria-hidden="true" className="size-3.5" />,
                )}
              {button(
                'all',
                'Show all hidden lines',
                <FoldVertical aria-hidden="true" className="size-3.5" />,
              )}
            </>
          )}
        </span>
      )}
      <span className="min-w-0 truncate">
        {segment.header ?? (show ? (Number.isFinite(hidden) ? `${hidden} more lines` : 'More lines') : '')}
        {loading && <span className="ml-2 text-zinc-500">Loading…</span>}
      </span>
    </div>
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
