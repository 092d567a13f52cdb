import { describe, expect, it } from 'vitest';
import { parsePatch, patchLines } from './parse-patch';

const header = [
  'diff --git a/src/greet.ts b/src/greet.ts',
  'index 1111111..2222222 100644',
  '--- a/src/greet.ts',
  '+++ b/src/greet.ts',
];

const brief = (patch: string) =>
  patchLines(parsePatch(patch)).map((line) => [line.kind, line.oldLine, line.newLine, line.text]);

describe('parsePatch', () => {
  it('numbers each line in the old and the new version from the hunk header', () => {
    const patch = [
      ...header,
      '@@ -3,4 +3,5 @@ export function greet(name: string) {',
      ' const a = 1;',
      '-const b = 2;',
      '+const b = 3;',
      '+const c = 4;',
      ' const d = 5;',
      ' ',
      '',
    ].join('\n');
    const [hunk] = parsePatch(patch);
    expect(hunk).toMatchObject({
      header: '@@ -3,4 +3,5 @@ export function greet(name: string) {',
      oldStart: 3,
      oldCount: 4,
      newStart: 3,
      newCount: 5,
    });
    expect(brief(patch)).toEqual([
      ['context', 3, 3, 'const a = 1;'],
      ['del', 4, null, 'const b = 2;'],
      ['add', null, 4, 'const b = 3;'],
      ['add', null, 5, 'const c = 4;'],
      ['context', 5, 6, 'const d = 5;'],
      ['context', 6, 7, ''],
    ]);
  });

  it('reads several hunks, and a deleted "-- x" or added "++ y" line as a line, not a header', () => {
    const patch = [
      ...header,
      '@@ -1,2 +1,2 @@',
      '--- a SQL comment',
      '+++ a counter',
      ' keep',
      '@@ -10 +10 @@',
      '-old',
      '+new',
    ].join('\n');
    expect(parsePatch(patch)).toHaveLength(2);
    expect(brief(patch)).toEqual([
      ['del', 1, null, '-- a SQL comment'],
      ['add', null, 1, '++ a counter'],
      ['context', 2, 2, 'keep'],
      ['del', 10, null, 'old'],
      ['add', null, 10, 'new'],
    ]);
  });

  it('starts an added file at line 1 and a deleted file’s old lines at 1', () => {
    const added = [
      'diff --git a/n.ts b/n.ts',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/n.ts',
      '@@ -0,0 +1,2 @@',
      '+one',
      '+two',
    ];
    expect(brief(added.join('\n'))).toEqual([
      ['add', null, 1, 'one'],
      ['add', null, 2, 'two'],
    ]);
    const deleted = [
      'diff --git a/o.ts b/o.ts',
      'deleted file mode 100644',
      '@@ -1,2 +0,0 @@',
      '-one',
      '-two',
    ];
    expect(brief(deleted.join('\n'))).toEqual([
      ['del', 1, null, 'one'],
      ['del', 2, null, 'two'],
    ]);
  });

  it('marks the line git says has no newline at the end of the file', () => {
    const patch = [
      ...header,
      '@@ -1 +1 @@',
      '-a',
      '\\ No newline at end of file',
      '+b',
      '\\ No newline at end of file',
    ];
    const lines = patchLines(parsePatch(patch.join('\n')));
    expect(lines.map((line) => line.noNewline)).toEqual([true, true]);
    expect(lines.map((line) => line.text)).toEqual(['a', 'b']);
  });

  it('keeps an empty context line whose space was stripped, and drops a CRLF file’s \\r', () => {
    const patch = [...header, '@@ -1,3 +1,3 @@', ' a\r', '', '-b\r', '+c\r'].join('\n');
    expect(brief(patch)).toEqual([
      ['context', 1, 1, 'a'],
      ['context', 2, 2, ''],
      ['del', 3, null, 'b'],
      ['add', null, 3, 'c'],
    ]);
  });

  it('yields no hunks for a binary file and reads what it can of a cut-short patch', () => {
    expect(parsePatch('diff --git a/i.png b/i.png\nBinary files a/i.png and b/i.png differ\n')).toEqual([]);
    expect(parsePatch('')).toEqual([]);
    // The hunk promises 3 lines and the patch stops after 1: the line read is kept, nothing is made up.
    expect(brief([...header, '@@ -1,3 +1,3 @@', ' only'].join('\n'))).toEqual([['context', 1, 1, 'only']]);
    // Text after a complete hunk that is not a hunk header is not a line of it.
    expect(brief([...header, '@@ -1 +1 @@', '-a', '+b', 'garbage', '+c'].join('\n'))).toEqual([
      ['del', 1, null, 'a'],
      ['add', null, 1, 'b'],
    ]);
  });
});
