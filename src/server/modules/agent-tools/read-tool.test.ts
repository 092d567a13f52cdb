import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executorFor, makeWorktree, type TestWorktree } from './test-worktree.js';

let t: TestWorktree;
beforeEach(async () => {
  t = await makeWorktree({ 'src/board.ts': 'one\ntwo\nthree\n' });
});
afterEach(() => t.cleanup());

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n');

describe('read_file', () => {
  it('shows a whole file as numbered lines', async () => {
    const result = await executorFor(t).ok('read_file', { path: 'src/board.ts' });
    expect(result.output).toBe('   1\tone\n   2\ttwo\n   3\tthree');
    expect(result.summary).toBe('Read src/board.ts (3 lines)');
  });

  it('shows a range and says where it is in the file', async () => {
    await t.write('big.txt', `${lines(50)}\n`);
    const result = await executorFor(t).ok('read_file', { path: 'big.txt', startLine: 10, endLine: 12 });
    expect(result.output).toBe('  10\tline 10\n  11\tline 11\n  12\tline 12\n[Lines 10–12 of 50.]');
    expect(result.summary).toBe('Read big.txt lines 10–12 of 50');
  });

  it('stops at the line cap and says how to continue', async () => {
    await t.write('big.txt', lines(30));
    const tools = executorFor(t, { limits: { maxReadLines: 20 } });
    const first = await tools.ok('read_file', { path: 'big.txt' });
    expect(first.output.split('\n')).toHaveLength(21);
    expect(first.output).toContain(
      '[Stopped at line 20 of 30 (at most 20 lines per call). Continue with startLine 21.]',
    );
    const rest = await tools.ok('read_file', { path: 'big.txt', startLine: 21 });
    expect(rest.output.split('\n')[0]).toBe('  21\tline 21');
    expect(rest.output).toContain('  30\tline 30');
  });

  it('stops at the byte cap', async () => {
    await t.write('wide.txt', `${'x'.repeat(100)}\n`.repeat(100));
    const result = await executorFor(t, { limits: { maxReadBytes: 1000 } }).ok('read_file', {
      path: 'wide.txt',
    });
    expect(result.output).toMatch(
      /Stopped at line 9 of 100 \(at most 1 KB per call\)\. Continue with startLine 10/,
    );
  });

  it('cuts an overlong line and says so', async () => {
    await t.write('min.js', `${'a'.repeat(50)}\n`);
    const result = await executorFor(t, { limits: { maxLineChars: 10 } }).ok('read_file', { path: 'min.js' });
    expect(result.output).toContain('aaaaaaaaaa… [line cut: 40 more characters]');
  });

  it('refuses a binary file, a directory, a missing file and a start past the end', async () => {
    await t.write('logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]));
    const tools = executorFor(t);
    expect((await tools.error('read_file', { path: 'logo.png' })).error).toMatch(
      /logo\.png is a binary file/,
    );
    expect((await tools.error('read_file', { path: 'src' })).error).toMatch(/src is a directory/);
    expect((await tools.error('read_file', { path: 'nope.ts' })).error).toMatch(/nope\.ts: no such file/);
    const past = await tools.error('read_file', { path: 'src/board.ts', startLine: 9 });
    expect(past.error).toBe('src/board.ts has 3 lines; startLine 9 is past its end');
    expect(past.summary).toBe(
      'read_file src/board.ts failed: src/board.ts has 3 lines; startLine 9 is past its end',
    );
  });

  it('refuses a file over the size cap', async () => {
    await t.write('huge.txt', 'y'.repeat(2048));
    const result = await executorFor(t, { limits: { maxFileBytes: 1024 } }).error('read_file', {
      path: 'huge.txt',
    });
    expect(result.error).toMatch(/huge\.txt is 2\.0 KB, over the 1\.0 KB the tools handle/);
  });

  it('reads a CRLF file without the CRs', async () => {
    await t.write('win.txt', 'a\r\nb\r\n');
    expect((await executorFor(t).ok('read_file', { path: 'win.txt' })).output).toBe('   1\ta\n   2\tb');
  });
});
