import type { PatchHunk, PatchLine } from './parse-patch';

/**
 * "Expand context" for one file's patch: the unchanged lines around its hunks, read from the file
 * at the run's head. Between two hunks (and before the first, after the last) lies a gap of
 * unchanged lines; a gap is revealed from its top (after the hunk above) and from its bottom
 * (before the hunk below). Unchanged lines have the same text in both versions; their old line
 * number is the new one shifted by what the hunks before them added and removed.
 */

/** How many lines one click reveals. */
export const EXPAND_STEP = 20;

/** The lines of a gap revealed so far from its top and from its bottom. */
export interface GapReveal {
  top: number;
  bottom: number;
}

interface Gap {
  /** First hidden new-version line (1-based). */
  start: number;
  /** Last hidden new-version line; Infinity after the last hunk while the file's length is unknown. */
  end: number;
  /** old line = new line + delta. */
  delta: number;
}

export type Segment =
  | { type: 'lines'; key: string; lines: PatchLine[] }
  | {
      type: 'gap';
      key: string;
      /** Which gap: 0 before the first hunk, hunks.length after the last. */
      gap: number;
      /** Lines still hidden (Infinity while the file's length is unknown); 0 for a bare hunk header. */
      hidden: number;
      /** The header of the hunk below; null after the last hunk. */
      header: string | null;
      position: 'top' | 'between' | 'bottom';
    };

const firstOf = (start: number, count: number) => (count === 0 ? start + 1 : start);

function gapsOf(hunks: readonly PatchHunk[], total: number | null): Gap[] {
  const gaps: Gap[] = [];
  let nextNew = 1;
  let delta = 0;
  for (const hunk of hunks) {
    const newFirst = firstOf(hunk.newStart, hunk.newCount);
    const oldFirst = firstOf(hunk.oldStart, hunk.oldCount);
    gaps.push({ start: nextNew, end: newFirst - 1, delta: oldFirst - newFirst });
    nextNew = newFirst + hunk.newCount;
    delta = oldFirst + hunk.oldCount - nextNew;
  }
  gaps.push({ start: nextNew, end: total ?? Number.POSITIVE_INFINITY, delta });
  return gaps;
}

/** A file's text as lines, as the patch numbers them (no empty line after the final line break). */
export function fileLines(text: string, cut = false): string[] {
  const lines = text.split('\n').map((line) => line.replace(/\r$/, ''));
  if (lines.at(-1) === '') lines.pop();
  // A file cut at its byte limit ends in a partial line.
  else if (cut) lines.pop();
  return lines;
}

/**
 * The rows of a file with the gaps revealed so far: runs of lines (hunk lines and revealed
 * context), and between them the gaps still hidden, each carrying the header of the hunk below
 * it. A gap revealed whole joins its two hunks. `content` (the file at head) is null until read:
 * nothing is revealed then.
 */
export function expandedSegments(
  hunks: readonly PatchHunk[],
  reveals: Readonly<Record<number, GapReveal>>,
  content: readonly string[] | null,
): Segment[] {
  if (hunks.length === 0) return [];
  const gaps = gapsOf(hunks, content ? content.length : null);
  const segments: Segment[] = [];
  let current: PatchLine[] = [];
  const flush = () => {
    if (current.length > 0) segments.push({ type: 'lines', key: `l${segments.length}`, lines: current });
    current = [];
  };
  const contextLine = (n: number, delta: number): PatchLine => ({
    kind: 'context',
    text: content?.[n - 1] ?? '',
    oldLine: n + delta,
    newLine: n,
  });

  gaps.forEach((gap, index) => {
    const size = Math.max(0, gap.end - gap.start + 1);
    const reveal = content ? (reveals[index] ?? { top: 0, bottom: 0 }) : { top: 0, bottom: 0 };
    const top = Math.min(reveal.top, size);
    const bottom = Math.min(reveal.bottom, size - top);
    for (let n = gap.start; n < gap.start + top; n++) current.push(contextLine(n, gap.delta));
    const hidden = size - top - bottom;
    const hunk = hunks[index];
    if (hidden > 0 || (size === 0 && index === 0)) {
      flush();
      segments.push({
        type: 'gap',
        key: `g${index}`,
        gap: index,
        hidden,
        header: hunk?.header ?? null,
        position: index === 0 ? 'top' : index === hunks.length ? 'bottom' : 'between',
      });
    }
    // (A gap with no end yet has nothing revealed at its bottom.)
    for (let n = gap.end - bottom + 1; bottom > 0 && n <= gap.end; n++)
      current.push(contextLine(n, gap.delta));
    if (hunk) current.push(...hunk.lines);
  });
  flush();
  return segments;
}

/** The reveal after one click: `up` shows the lines just above the hunk below, `down` those below the hunk above. */
export function revealMore(
  reveal: GapReveal | undefined,
  direction: 'up' | 'down' | 'all',
  step = EXPAND_STEP,
): GapReveal {
  const current = reveal ?? { top: 0, bottom: 0 };
  if (direction === 'all') return { top: Number.MAX_SAFE_INTEGER, bottom: current.bottom };
  return direction === 'up'
    ? { ...current, bottom: current.bottom + step }
    : { ...current, top: current.top + step };
}
