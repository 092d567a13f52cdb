import { describe, expect, it } from 'vitest';
import { splitRows, unifiedRows } from './diff-rows';
import { parsePatch } from './parse-patch';

const patch = [
  'diff --git a/a.ts b/a.ts',
  '@@ -1,7 +1,6 @@',
  ' keep',
  '-old 1',
  '-old 2',
  '-old 3',
  '+new 1',
  ' middle',
  '-gone',
  '+added 1',
  '+added 2',
  ' end',
].join('\n');

const side = (line: { text: string } | null) => line?.text ?? null;

describe('diff rows', () => {
  it('side by side: a run of deletions beside the additions that follow, the rest beside blanks', () => {
    const rows = splitRows(parsePatch(patch));
    expect(rows[0]).toMatchObject({ type: 'hunk', header: '@@ -1,7 +1,6 @@' });
    const pairs = rows.slice(1).map((row) => (row.type === 'pair' ? [side(row.left), side(row.right)] : row));
    expect(pairs).toEqual([
      ['keep', 'keep'],
      ['old 1', 'new 1'],
      ['old 2', null],
      ['old 3', null],
      ['middle', 'middle'],
      ['gone', 'added 1'],
      [null, 'added 2'],
      ['end', 'end'],
    ]);
  });

  it('gives every row of a file a key of its own, in both layouts', () => {
    const hunks = parsePatch(`${patch}\n@@ -20 +20 @@\n-x\n+y`);
    for (const rows of [splitRows(hunks), unifiedRows(hunks)]) {
      const keys = rows.map((row) => row.key);
      expect(new Set(keys).size).toBe(keys.length);
    }
    expect(unifiedRows(hunks)).toHaveLength(2 + 10 + 2);
  });
});
