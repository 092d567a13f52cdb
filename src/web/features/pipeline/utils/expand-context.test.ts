import { describe, expect, it } from 'vitest';
import { expandedSegments, fileLines, revealMore } from './expand-context';
import { parsePatch } from './parse-patch';

const hunks = parsePatch(
  ['@@ -5,3 +5,4 @@', ' five', '+new', ' six', ' seven', '@@ -20,2 +21,1 @@', ' twenty', '-gone', ''].join(
    '\n',
  ),
);
// Head: 30 lines, "new" inserted at 6 and old line 21 removed: the same count after both.
const head = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);

describe('expandedSegments', () => {
  it('leaves gaps above, between and below the hunks, the last of unknown size until the file is read', () => {
    const segments = expandedSegments(hunks, {}, null);
    expect(
      segments.map((s) => (s.type === 'gap' ? `gap${s.gap}:${s.hidden}` : `lines:${s.lines.length}`)),
    ).toEqual(['gap0:4', 'lines:4', 'gap1:12', 'lines:2', 'gap2:Infinity']);
  });

  it('reveals lines next to the hunks with both numbers, and joins hunks whose gap is shown whole', () => {
    const segments = expandedSegments(hunks, { 1: { top: 2, bottom: 1 } }, head);
    const lines = segments.flatMap((s) => (s.type === 'lines' ? s.lines : []));
    const context = lines.filter((line) => line.text.startsWith('line'));
    // Below the first hunk: new 9, 10 (old 8, 9); above the second: new 20 (old 19).
    expect(context.map((line) => [line.newLine, line.oldLine])).toEqual([
      [9, 8],
      [10, 9],
      [20, 19],
    ]);
    const last = expandedSegments(hunks, { 2: revealMore(undefined, 'all') }, head).at(-1);
    expect(last?.type === 'lines' && last.lines.at(-1)).toMatchObject({ newLine: 30, oldLine: 30 });
    const joined = expandedSegments(hunks, { 1: revealMore(undefined, 'all') }, head);
    expect(joined.filter((s) => s.type === 'gap').map((s) => s.type === 'gap' && s.gap)).toEqual([0, 2]);
  });

  it('reads a file into lines without the empty one after its last break, nor a cut last line', () => {
    expect(fileLines('a\r\nb\n')).toEqual(['a', 'b']);
    expect(fileLines('a\nb\npart', true)).toEqual(['a', 'b']);
  });
});
