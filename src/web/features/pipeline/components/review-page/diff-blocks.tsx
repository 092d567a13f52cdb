import { memo, useEffect, useMemo } from 'react';
import { type HighlightedLines, useHighlightedPatch } from '../../hooks/use-highlighted-patch';
import { splitRows, unifiedRows } from '../../utils/diff-rows';
import type { PatchHunk, PatchLine } from '../../utils/parse-patch';
import { type DiffTableProps, SplitTable, UnifiedTable } from '../review/diff-table';
import type { DiffMode } from '../review/file-diff';

/** Lines as a hunk of their own, for the row builders and the highlighter. */
export const asHunk = (lines: PatchLine[]): PatchHunk => ({
  header: '',
  oldStart: 0,
  oldCount: 0,
  newStart: 0,
  newCount: 0,
  lines,
});

/**
 * Lines per block of a file's diff: a block renders, and is highlighted, once it nears the visible
 * part of the page (LazyBlock), so a long file costs the page one block at a time.
 */
export const BLOCK_LINES = 40;
/** The height of one row of the diff's tables (text-xs, leading-5), for a block not rendered yet. */
export const ROW_PX = 20;

export interface Block {
  key: string;
  lines: PatchLine[];
}

/**
 * A run of lines cut into blocks of about BLOCK_LINES lines, never between deleted lines and the
 * added lines after them (side by side, they face each other), unless such a change runs on
 * for twice as long.
 */
export function blocksOf(key: string, lines: PatchLine[]): Block[] {
  if (lines.length <= BLOCK_LINES * 1.5) return [{ key, lines }];
  // Whether line i is an added line of a run that follows deleted lines.
  const paired: boolean[] = [];
  lines.forEach((line, i) => {
    const previous = lines[i - 1];
    paired.push(
      line.kind === 'add' && previous !== undefined && (previous.kind === 'del' || paired[i - 1] === true),
    );
  });
  const blocks: Block[] = [];
  let start = 0;
  for (let i = 1; i < lines.length; i++) {
    const size = i - start;
    if (size < BLOCK_LINES) continue;
    const cuttable = lines[i - 1]?.kind !== 'del' && !paired[i];
    if (cuttable || size >= BLOCK_LINES * 2) {
      blocks.push({ key: `${key}.${blocks.length}`, lines: lines.slice(start, i) });
      start = i;
    }
  }
  // A short rest joins the block before it.
  const last = blocks.at(-1);
  if (last && lines.length - start < BLOCK_LINES / 2) last.lines = [...last.lines, ...lines.slice(start)];
  else blocks.push({ key: `${key}.${blocks.length}`, lines: lines.slice(start) });
  return blocks;
}

/** Rows of a block side by side: a context line is one, a change as many as its longer side. */
export function splitRowCount(lines: readonly PatchLine[]): number {
  let rows = 0;
  let dels = 0;
  let adds = 0;
  const flush = () => {
    rows += Math.max(dels, adds);
    dels = 0;
    adds = 0;
  };
  for (const line of lines) {
    if (line.kind === 'context') {
      flush();
      rows++;
    } else if (line.kind === 'del') {
      if (adds > 0) flush();
      dels++;
    } else adds++;
  }
  flush();
  return rows;
}

export type TableProps = Omit<DiffTableProps, 'highlighted'>;

/**
 * A block's colours, kept while its lines are (its file's diff stays): a block drawn again after
 * it scrolled far away is not coloured again.
 */
const coloured = new WeakMap<readonly PatchLine[], HighlightedLines>();
const NO_HUNKS: PatchHunk[] = [];

/** One block of lines as a table, coloured once its highlighting is ready. */
export const BlockTable = memo(function BlockTable({
  lines,
  mode,
  language,
  tableProps,
}: {
  lines: PatchLine[];
  mode: DiffMode;
  language: string;
  tableProps: TableProps;
}) {
  const hunks = useMemo(() => [asHunk(lines)], [lines]);
  const known = coloured.get(lines);
  const fresh = useHighlightedPatch(known ? NO_HUNKS : hunks, language);
  useEffect(() => {
    if (fresh) coloured.set(lines, fresh);
  }, [fresh, lines]);
  const highlighted = known ?? fresh;
  return mode === 'split' ? (
    <SplitTable
      rows={splitRows(hunks).filter((row) => row.type !== 'hunk')}
      highlighted={highlighted}
      {...tableProps}
    />
  ) : (
    <UnifiedTable
      rows={unifiedRows(hunks).filter((row) => row.type !== 'hunk')}
      highlighted={highlighted}
      {...tableProps}
    />
  );
});
