/**
 * One file's unified diff (as `git diff` writes it, header included) turned into hunks of
 * numbered lines. The patch is model-written code: it is only split into strings here, never
 * interpreted, and a malformed patch yields what could be read rather than an exception.
 */

export type PatchLineKind = 'context' | 'add' | 'del';

export interface PatchLine {
  kind: PatchLineKind;
  /** The line's text without its +/-/space marker and without the line break. */
  text: string;
  /** 1-based line in the old version; null for an added line. */
  oldLine: number | null;
  /** 1-based line in the new version; null for a deleted line. */
  newLine: number | null;
  /** Git's "\ No newline at end of file" followed this line. */
  noNewline?: true;
}

export interface PatchHunk {
  /** The `@@ … @@` line as git wrote it (with the enclosing function, when git found one). */
  header: string;
  oldStart: number;
  oldCount: number;
  newStart: number;
  newCount: number;
  lines: PatchLine[];
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

interface OpenHunk {
  hunk: PatchHunk;
  oldLeft: number;
  newLeft: number;
  oldAt: number;
  newAt: number;
}

function openHunk(line: string): OpenHunk | null {
  const match = HUNK_HEADER.exec(line);
  if (!match) return null;
  const oldStart = Number(match[1]);
  const oldCount = match[2] === undefined ? 1 : Number(match[2]);
  const newStart = Number(match[3]);
  const newCount = match[4] === undefined ? 1 : Number(match[4]);
  return {
    hunk: { header: line, oldStart, oldCount, newStart, newCount, lines: [] },
    oldLeft: oldCount,
    newLeft: newCount,
    // A count of 0 means the side is empty; its start is the line before the hunk.
    oldAt: oldCount === 0 ? oldStart + 1 : oldStart,
    newAt: newCount === 0 ? newStart + 1 : newStart,
  };
}

/** Adds one body line to the hunk; false when the line cannot belong to it (the hunk is over). */
function addLine(open: OpenHunk, raw: string): boolean {
  const marker = raw[0];
  // A CRLF file's lines end in \r in the patch; the break is not part of the text shown.
  const text = raw.slice(1).replace(/\r$/, '');
  // Some tools strip the space of an empty context line.
  if ((marker === ' ' || raw === '') && open.oldLeft > 0 && open.newLeft > 0) {
    open.hunk.lines.push({ kind: 'context', text, oldLine: open.oldAt++, newLine: open.newAt++ });
    open.oldLeft--;
    open.newLeft--;
    return true;
  }
  if (marker === '-' && open.oldLeft > 0) {
    open.hunk.lines.push({ kind: 'del', text, oldLine: open.oldAt++, newLine: null });
    open.oldLeft--;
    return true;
  }
  if (marker === '+' && open.newLeft > 0) {
    open.hunk.lines.push({ kind: 'add', text, oldLine: null, newLine: open.newAt++ });
    open.newLeft--;
    return true;
  }
  return false;
}

/**
 * The hunks of a file's patch. Lines are counted by the hunk headers, so a deleted line that
 * reads `-- x` or an added `++ y` is not mistaken for a file header.
 */
export function parsePatch(patch: string): PatchHunk[] {
  const hunks: PatchHunk[] = [];
  let open: OpenHunk | null = null;
  const lines = patch.split('\n');
  if (lines.at(-1) === '') lines.pop();
  for (const line of lines) {
    if (open && (open.oldLeft > 0 || open.newLeft > 0) && addLine(open, line)) continue;
    if (line.startsWith('\\')) {
      const last = open?.hunk.lines.at(-1);
      if (last) last.noNewline = true;
      continue;
    }
    const next = openHunk(line);
    if (next) {
      open = next;
      hunks.push(next.hunk);
    }
    // Anything else (diff --git, index, ---/+++ headers, "Binary files differ") is not a line of a hunk.
  }
  return hunks;
}

/** Every line of the patch's hunks, in order. */
export const patchLines = (hunks: readonly PatchHunk[]): PatchLine[] => hunks.flatMap((hunk) => hunk.lines);
