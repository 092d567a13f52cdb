import { describe, expect, it } from 'vitest';
import type { DiffFinding } from '@/contracts/diff';
import type { ReviewComment } from '@/contracts/review-comments';
import { parsePatch, patchLines } from './parse-patch';
import { countBySeverity, pinNotes } from './pin-notes';

const lines = patchLines(
  parsePatch(['@@ -10,3 +10,3 @@', ' ten', '-eleven', '+eleven!', ' twelve'].join('\n')),
);

const finding = (line: number, severity: DiffFinding['severity'], message = `at ${line}`): DiffFinding => ({
  line,
  severity,
  message,
});

const comment = (line: number, id = `c${line}`): ReviewComment => ({
  id,
  path: 'a.ts',
  line,
  body: `comment ${line}`,
  createdAt: new Date(0).toISOString(),
  addressedAt: null,
});

describe('pinNotes', () => {
  it('pins findings (most severe first) and comments to the new version’s lines the patch shows', () => {
    const pinned = pinNotes(
      lines,
      false,
      [finding(11, 'info'), finding(11, 'error'), finding(12, 'warning')],
      [comment(10), comment(11)],
    );
    expect(pinned.byLine.get(11)?.findings.map((f) => f.severity)).toEqual(['error', 'info']);
    expect(pinned.byLine.get(12)?.findings.map((f) => f.severity)).toEqual(['warning']);
    expect(pinned.byLine.get(10)?.comments.map((c) => c.id)).toEqual(['c10']);
    expect(pinned.byLine.get(11)?.comments.map((c) => c.id)).toEqual(['c11']);
    expect(pinned.unplaced).toEqual({ findings: [], comments: [] });
  });

  it('keeps apart what is about the whole file (line 0) or a line the patch does not show', () => {
    const pinned = pinNotes(lines, false, [finding(0, 'warning'), finding(40, 'error')], [comment(99)]);
    expect(pinned.byLine.size).toBe(0);
    expect(pinned.unplaced.findings.map((f) => f.line)).toEqual([40, 0]);
    expect(pinned.unplaced.comments.map((c) => c.line)).toEqual([99]);
  });

  it('pins a deleted file’s findings to its old lines', () => {
    const deleted = patchLines(parsePatch('@@ -1,2 +0,0 @@\n-a\n-b'));
    const pinned = pinNotes(deleted, true, [finding(2, 'info')], [comment(2)]);
    expect(pinned.byLine.get(2)?.findings).toHaveLength(1);
    // Comments are on new lines, which a deleted file has none of.
    expect(pinned.unplaced.comments).toHaveLength(1);
  });

  it('counts findings by severity', () => {
    expect(countBySeverity([finding(1, 'error'), finding(2, 'error'), finding(3, 'info')])).toEqual({
      error: 2,
      warning: 0,
      info: 1,
    });
  });
});
