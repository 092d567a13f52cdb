import type { DiffFinding } from '@/contracts/diff';
import type { FindingSeverity } from '@/contracts/pipeline';
import type { ReviewComment } from '@/contracts/review-comments';
import { anchorLine } from './diff-rows';
import type { PatchLine } from './parse-patch';

export const SEVERITY_ORDER: Record<FindingSeverity, number> = { error: 0, warning: 1, info: 2 };

export const bySeverity = (a: { severity: FindingSeverity }, b: { severity: FindingSeverity }) =>
  SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity];

/** What is said about one line of a file: the reviewer's findings (most severe first) and people's comments. */
export interface LineNotes {
  findings: DiffFinding[];
  comments: ReviewComment[];
}

export interface PinnedNotes {
  /** By the line they attach to (see `anchorLine`). */
  byLine: Map<number, LineNotes>;
  /** Notes about the file as a whole (line 0) or about a line the patch does not show. */
  unplaced: LineNotes;
}

/**
 * Pins a file's findings and comments to the lines of its patch. A finding or comment whose
 * line is not among them is kept apart, so nothing said about the file goes unshown.
 */
export function pinNotes(
  lines: readonly PatchLine[],
  deletedFile: boolean,
  findings: readonly DiffFinding[],
  comments: readonly ReviewComment[],
): PinnedNotes {
  const shown = new Set<number>();
  for (const line of lines) {
    const anchor = anchorLine(line, deletedFile);
    if (anchor !== null) shown.add(anchor);
  }
  const byLine = new Map<number, LineNotes>();
  const unplaced: LineNotes = { findings: [], comments: [] };
  const at = (line: number) => {
    let notes = byLine.get(line);
    if (!notes) {
      notes = { findings: [], comments: [] };
      byLine.set(line, notes);
    }
    return notes;
  };
  for (const finding of [...findings].sort(bySeverity)) {
    (shown.has(finding.line) ? at(finding.line) : unplaced).findings.push(finding);
  }
  // Comments are on the new version's lines; a deleted file has none to show them at.
  for (const comment of comments) {
    (!deletedFile && shown.has(comment.line) ? at(comment.line) : unplaced).comments.push(comment);
  }
  return { byLine, unplaced };
}

export type SeverityCounts = Record<FindingSeverity, number>;

export function countBySeverity(findings: readonly { severity: FindingSeverity }[]): SeverityCounts {
  const counts: SeverityCounts = { error: 0, warning: 0, info: 0 };
  for (const finding of findings) counts[finding.severity]++;
  return counts;
}
