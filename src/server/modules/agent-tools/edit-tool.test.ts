import { stat } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executorFor, makeWorktree, type TestWorktree } from './test-worktree.js';

let t: TestWorktree;
beforeEach(async () => {
  t = await makeWorktree({ 'src/board.ts': 'const a = 1;\nconst b = 2;\nconst c = 3;\n' });
});
afterEach(() => t.cleanup());

describe('edit_file', () => {
  it('replaces the one occurrence and reports the changed lines', async () => {
    const result = await executorFor(t).ok('edit_file', {
      path: 'src/board.ts',
      oldText: 'const b = 2;\n',
      newText: 'const b = 20;\nconst b2 = 21;\nconst b3 = 22;\n',
    });
    expect((await t.read('src/board.ts')).toString()).toBe(
      'const a = 1;\nconst b = 20;\nconst b2 = 21;\nconst b3 = 22;\nconst c = 3;\n',
    );
    expect(result.summary).toBe('Edited src/board.ts +3 −1');
    expect(result.changed).toEqual({ path: 'src/board.ts', added: 3, removed: 1 });
    expect(result.output).toContain('   2\tconst b = 20;');
  });

  it('changes one line of a 250 KB file and leaves every other byte as it was', async () => {
    const body = Array.from(
      { length: 6000 },
      (_, i) => `export const value${i} = ${i}; // ${'·'.repeat(i % 9)}`,
    );
    const before = Buffer.from(`\ufeff${body.join('\n')}`); // a BOM, non-ASCII, no final newline
    expect(before.length).toBeGreaterThan(250_000);
    await t.write('big.ts', before);
    const result = await executorFor(t).ok('edit_file', {
      path: 'big.ts',
      oldText: 'export const value3000 = 3000;',
      newText: 'export const value3000 = 42;',
    });
    const after = await t.read('big.ts');
    const at = before.indexOf('export const value3000 = 3000;');
    const expected = Buffer.concat([
      before.subarray(0, at),
      Buffer.from('export const value3000 = 42;'),
      before.subarray(at + 'export const value3000 = 3000;'.length),
    ]);
    expect(after.equals(expected)).toBe(true);
    expect(result.changed).toEqual({ path: 'big.ts', added: 1, removed: 1 });
  });

  it('says when oldText is not found, with where its first line is', async () => {
    const result = await executorFor(t).error('edit_file', {
      path: 'src/board.ts',
      oldText: 'const b = 2;\nconst c = 4;',
      newText: 'x',
    });
    expect(result.error).toContain('oldText was not found in src/board.ts.');
    expect(result.error).toContain('Its first line occurs at line 2; there the file reads:');
    expect(result.error).toContain('   3\tconst c = 3;');
    expect(result.summary).toMatch(/^edit_file src\/board\.ts failed: oldText was not found/);
  });

  it('says when oldText matches with whitespace ignored only', async () => {
    const result = await executorFor(t).error('edit_file', {
      path: 'src/board.ts',
      oldText: 'const  b = 2;',
      newText: 'x',
    });
    expect(result.error).toMatch(/would match with whitespace ignored/);
  });

  it('refuses several occurrences with their line numbers, and replaces them all with replaceAll', async () => {
    await t.write('dup.ts', 'foo();\nbar();\nfoo();\nfoo();\n');
    const tools = executorFor(t);
    const refused = await tools.error('edit_file', { path: 'dup.ts', oldText: 'foo();', newText: 'baz();' });
    expect(refused.error).toMatch(/oldText occurs 3 times in dup\.ts, at lines 1, 3, 4\./);
    expect((await t.read('dup.ts')).toString()).toBe('foo();\nbar();\nfoo();\nfoo();\n');
    const all = await tools.ok('edit_file', {
      path: 'dup.ts',
      oldText: 'foo();',
      newText: 'baz();',
      replaceAll: true,
    });
    expect((await t.read('dup.ts')).toString()).toBe('baz();\nbar();\nbaz();\nbaz();\n');
    expect(all.changed).toEqual({ path: 'dup.ts', added: 3, removed: 3 });
  });

  it('keeps CRLF line ends when the model writes LF', async () => {
    await t.write('win.txt', 'a\r\nb\r\nc\r\n');
    await executorFor(t).ok('edit_file', { path: 'win.txt', oldText: 'a\nb\n', newText: 'a\nB\nB2\n' });
    expect((await t.read('win.txt')).toString()).toBe('a\r\nB\r\nB2\r\nc\r\n');
  });

  it("keeps the file's mode", async () => {
    await t.write('run.sh', '#!/bin/sh\necho hi\n');
    const { chmod } = await import('node:fs/promises');
    await chmod(path.join(t.worktree, 'run.sh'), 0o755);
    await executorFor(t).ok('edit_file', { path: 'run.sh', oldText: 'hi', newText: 'hello' });
    expect((await stat(path.join(t.worktree, 'run.sh'))).mode & 0o777).toBe(0o755);
  });

  it('refuses a missing file, a binary file and an edit that changes nothing', async () => {
    await t.write('bin.dat', Buffer.from([1, 0, 2]));
    const tools = executorFor(t);
    expect((await tools.error('edit_file', { path: 'new.ts', oldText: 'a', newText: 'b' })).error).toMatch(
      /new\.ts does not exist; create it with write_file/,
    );
    expect((await tools.error('edit_file', { path: 'bin.dat', oldText: 'a', newText: 'b' })).error).toMatch(
      /binary file/,
    );
    expect(
      (await tools.error('edit_file', { path: 'src/board.ts', oldText: 'a', newText: 'a' })).error,
    ).toMatch(/nothing to change/);
  });
});
