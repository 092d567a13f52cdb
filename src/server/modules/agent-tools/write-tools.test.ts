import { stat } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executorFor, makeWorktree, type TestWorktree } from './test-worktree.js';

let t: TestWorktree;
beforeEach(async () => {
  t = await makeWorktree({ 'src/board.ts': 'one\ntwo\n' });
});
afterEach(() => t.cleanup());

const exists = (file: string) =>
  stat(file).then(
    () => true,
    () => false,
  );

describe('write_file', () => {
  it('creates a new file and its directories', async () => {
    const result = await executorFor(t).ok('write_file', { path: 'src/new/mod.ts', content: 'a\nb\n' });
    expect((await t.read('src/new/mod.ts')).toString()).toBe('a\nb\n');
    expect(result.summary).toBe('Wrote src/new/mod.ts (2 lines)');
    expect(result.changed).toEqual({ path: 'src/new/mod.ts', added: 2, removed: 0 });
  });

  it('refuses to replace a file not read in full in this step', async () => {
    const tools = executorFor(t);
    const refused = await tools.error('write_file', { path: 'src/board.ts', content: 'new\n' });
    expect(refused.error).toMatch(
      /has not|have not read all of it in this step: read it in full with read_file first/,
    );
    await tools.ok('read_file', { path: 'src/board.ts', startLine: 1, endLine: 1 });
    await tools.error('write_file', { path: 'src/board.ts', content: 'new\n' });
    expect((await t.read('src/board.ts')).toString()).toBe('one\ntwo\n');
  });

  it('replaces a file read in full in this step, and only in this step', async () => {
    const step = executorFor(t);
    await step.ok('read_file', { path: './src//board.ts' });
    const result = await step.ok('write_file', { path: 'src/board.ts', content: 'new\n' });
    expect((await t.read('src/board.ts')).toString()).toBe('new\n');
    expect(result.changed).toEqual({ path: 'src/board.ts', added: 1, removed: 2 });
    // A later write in the same step is fine (the agent wrote the whole file), a new step starts over.
    await step.ok('write_file', { path: 'src/board.ts', content: 'newer\n' });
    await executorFor(t).error('write_file', { path: 'src/board.ts', content: 'x\n' });
  });

  it('refuses a file that changed since it was read', async () => {
    const step = executorFor(t);
    await step.ok('read_file', { path: 'src/board.ts' });
    await t.write('src/board.ts', 'changed by the check, longer\n');
    expect((await step.error('write_file', { path: 'src/board.ts', content: 'x\n' })).error).toMatch(
      /changed since you read it/,
    );
    expect((await t.read('src/board.ts')).toString()).toBe('changed by the check, longer\n');
  });

  it('leaves no temp file behind', async () => {
    const step = executorFor(t);
    await step.ok('write_file', { path: 'src/x.ts', content: 'x\n' });
    await step.ok('edit_file', { path: 'src/x.ts', oldText: 'x', newText: 'y' });
    const { readdir } = await import('node:fs/promises');
    expect((await readdir(path.join(t.worktree, 'src'))).sort()).toEqual(['board.ts', 'x.ts']);
  });
});

describe('delete_file', () => {
  it('deletes a file and reports its lines', async () => {
    const result = await executorFor(t).ok('delete_file', { path: 'src/board.ts' });
    expect(await exists(path.join(t.worktree, 'src/board.ts'))).toBe(false);
    expect(result.summary).toBe('Deleted src/board.ts −2');
    expect(result.changed).toEqual({ path: 'src/board.ts', added: 0, removed: 2 });
  });

  it('refuses a missing file and a directory', async () => {
    const tools = executorFor(t);
    expect((await tools.error('delete_file', { path: 'gone.ts' })).error).toBe('gone.ts: no such file');
    expect((await tools.error('delete_file', { path: 'src' })).error).toBe('src is a directory');
    expect(await exists(path.join(t.worktree, 'src/board.ts'))).toBe(true);
  });
});

describe('beforeWrite', () => {
  it('is called with the canonical relative path before each write, edit and delete', async () => {
    const calls: string[] = [];
    const tools = executorFor(t, {
      beforeWrite: async (rel) => {
        calls.push(`${rel}:${await exists(path.join(t.worktree, rel))}`);
      },
    });
    await tools.ok('write_file', { path: './lib/a.ts', content: 'a\n' });
    await tools.ok('edit_file', { path: 'lib/a.ts', oldText: 'a', newText: 'b' });
    await tools.ok('delete_file', { path: 'lib/a.ts' });
    await tools.ok('read_file', { path: 'src/board.ts' });
    expect(calls).toEqual(['lib/a.ts:false', 'lib/a.ts:true', 'lib/a.ts:true']);
  });

  it('that throws leaves the file untouched and comes back as a tool error with its message', async () => {
    const tools = executorFor(t, {
      beforeWrite: async (rel) => {
        throw new Error(`${rel} is locked by coder-2 (WRITING)`);
      },
    });
    await tools.ok('read_file', { path: 'src/board.ts' });
    for (const [name, input] of [
      ['edit_file', { path: 'src/board.ts', oldText: 'one', newText: 'uno' }],
      ['write_file', { path: 'src/board.ts', content: 'x' }],
      ['delete_file', { path: 'src/board.ts' }],
    ] as const) {
      const result = await tools.error(name, input);
      expect(result.error).toBe('src/board.ts is locked by coder-2 (WRITING)');
    }
    const created = await tools.error('write_file', { path: 'fresh/new.ts', content: 'x' });
    expect(created.error).toBe('fresh/new.ts is locked by coder-2 (WRITING)');
    expect((await t.read('src/board.ts')).toString()).toBe('one\ntwo\n');
    expect(await exists(path.join(t.worktree, 'fresh'))).toBe(false);
  });
});
