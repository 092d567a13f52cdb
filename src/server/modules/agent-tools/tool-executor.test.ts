import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executorFor, makeWorktree, type TestWorktree } from './test-worktree.js';

let t: TestWorktree;
beforeEach(async () => {
  t = await makeWorktree({ 'a.ts': 'a\n' });
});
afterEach(() => t.cleanup());

describe('the executor', () => {
  it('answers an unknown tool with the list of tools', async () => {
    const result = await executorFor(t).error('rm_rf', {});
    expect(result.error).toMatch(
      /^unknown tool "rm_rf"; the tools are list_files, read_file, search, edit_file/,
    );
  });

  it('names the field that fails the schema, and the fields the tool takes', async () => {
    const tools = executorFor(t);
    const wrongType = await tools.error('read_file', { path: 'a.ts', startLine: 'ten' });
    expect(wrongType.error).toMatch(/^invalid input for read_file: startLine: .*expected number/);
    expect(wrongType.error).toMatch(/\(read_file takes path, startLine, endLine\)$/);
    const missing = await tools.error('edit_file', { path: 'a.ts', newText: 'b' });
    expect(missing.error).toMatch(/oldText: .*expected string/);
    const extra = await tools.error('read_file', { path: 'a.ts', start_line: 2 });
    expect(extra.error).toMatch(/Unrecognized key: "start_line"/);
    expect((await tools.error('read_file', 'not json')).error).toBe(
      'the input of read_file is not valid JSON',
    );
  });

  it('takes arguments as a JSON string (OpenAI-compatible tool calls)', async () => {
    const result = await executorFor(t).ok('read_file', '{"path":"a.ts"}');
    expect(result.output).toBe('   1\ta');
  });

  it('leaves run_check and finish to the loop unless handlers are given', async () => {
    expect((await executorFor(t).error('finish', { summary: 'done' })).error).toBe(
      'finish is not handled here',
    );
    const tools = executorFor(t, {
      handlers: {
        finish: async ({ summary }) => ({ ok: true, output: 'bye', summary: `Finished: ${summary}` }),
        run_check: async () => {
          throw new Error('the sandbox is not available');
        },
      },
    });
    expect(await tools.call('finish', { summary: 'done' })).toEqual({
      ok: true,
      output: 'bye',
      summary: 'Finished: done',
    });
    expect(await tools.call('run_check', {})).toEqual({
      ok: false,
      error: 'the sandbox is not available',
      summary: 'run_check failed: the sandbox is not available',
    });
  });

  it('answers a cancelled call as cancelled, touching nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    const { createToolExecutor } = await import('./tool-executor.js');
    const executor = createToolExecutor({ worktree: t.worktree });
    const result = await executor.execute('write_file', { path: 'b.ts', content: 'b' }, controller.signal);
    expect(result).toMatchObject({ ok: false, error: 'cancelled' });
    await expect(t.read('b.ts')).rejects.toThrow(/ENOENT/);
  });
});
