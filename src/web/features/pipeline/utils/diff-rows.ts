import type { PatchHunk, PatchLine } from './parse-patch';

/** A hunk's header row; `key`s are unique within one file's rows. */
export type HunkRow = { type: 'hunk'; key: string; header: string };

/** A row of the unified view: a hunk's header, or one line of the old or new version (or both). */
export type UnifiedRow = HunkRow | { type: 'line'; key: string; line: PatchLine };

/** A row of the side-by-side view: a hunk's header, or the old line beside the new one. */
export type SplitRow =
  | HunkRow
  | { type: 'pair'; key: string; left: PatchLine | null; right: PatchLine | null };

/** Each old line and each new line is in a file's patch once, so their numbers name a row. */
const lineKey = (left: PatchLine | null, right: PatchLine | null) =>
  `${left?.oldLine ?? ''}:${right?.newLine ?? ''}`;

export function unifiedRows(hunks: readonly PatchHunk[]): UnifiedRow[] {
  const rows: UnifiedRow[] = [];
  hunks.forEach((hunk, index) => {
    rows.push({ type: 'hunk', key: `h${index}`, header: hunk.header });
    for (const line of hunk.lines) rows.push({ type: 'line', key: lineKey(line, line), line });
  });
  return rows;
}

/**
 * Side by side: a context line on both sides; a run of deleted lines beside the run of added
 * lines that follows it, paired in order, the longer run's rest beside blanks.
 */
export function splitRows(hunks: readonly PatchHunk[]): SplitRow[] {
  const rows: SplitRow[] = [];
  hunks.forEach((hunk, index) => {
    rows.push({ type: 'hunk', key: `h${index}`, header: hunk.header });
    let dels: PatchLine[] = [];
    let adds: PatchLine[] = [];
    const flush = () => {
      for (let i = 0; i < Math.max(dels.length, adds.length); i++) {
        const left = dels[i] ?? null;
        const right = adds[i] ?? null;
        rows.push({ type: 'pair', key: lineKey(left, right), left, right });
      }
      dels = [];
      adds = [];
    };
    for (const line of hunk.lines) {
      if (line.kind === 'context') {
        flush();
        rows.push({ type: 'pair', key: lineKey(line, line), left: line, right: line });
      } else if (line.kind === 'del') {
        // A deletion after additions starts a new change block.
        if (adds.length > 0) flush();
        dels.push(line);
      } else {
        adds.push(line);
      }
    }
    flush();
  });
  return rows;
}

/**
 * The file line that findings and comments attach to: the new version's line, or the old
 * version's for a deleted file (it has no new version). Null for a line that has none.
 */
export function anchorLine(line: PatchLine | null, deletedFile: boolean): number | null {
  if (!line) return null;
  return deletedFile ? line.oldLine : line.newLine;
}

/** The line a split row's notes attach to. */
export function splitAnchor(row: Extract<SplitRow, { type: 'pair' }>, deletedFile: boolean): number | null {
  return deletedFile ? anchorLine(row.left, true) : anchorLine(row.right, false);
}
