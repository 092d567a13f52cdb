// The simulated coder against AutoCoder's own tool executor (agent-tools) on a real worktree: its outputs
// (numbered lines, notes, git listings, edit errors) are what the simulator reads back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorktree, type TestWorktree } from '@/server/modules/agent-tools/test-worktree.js';
import { TOOL_NAMES } from '@/server/modules/agent-tools/tool-declarations.js';
import { createToolExecutor } from '@/server/modules/agent-tools/tool-executor.js';
import { buildCoderUserPrompt } from '@/server/modules/pipeline/prompts/coder-prompt.js';
import { mainModule } from './content.js';
import { namesOf } from './plan.js';
import { systemFor } from './prompt-fixtures.js';
import { type SimulatorHandle, startSimulator } from './server.js';
import { callNames, driveAnthropic, driveOpenAi, type Executor } from './tool-test-kit.js';

let sim: SimulatorHandle;
const trees: TestWorktree[] = [];
beforeAll(async () => {
  sim = await startSimulator({ port: 0, chunkDelayMs: 0 });
});
afterAll(async () => {
  await sim.close();
  for (const tree of trees) await tree.cleanup();
});

const task = { title: 'Add greeting helper', category: 'feature', description: 'Greet a user by name.' };
const names = namesOf({ ...task, category: 'feature' });

function realExecutor(tree: TestWorktree): Executor {
  const executor = createToolExecutor({
    worktree: tree.worktree,
    handlers: {
      run_check: async () => ({
        ok: true,
        output: 'The check passed after 0.2 s.',
        summary: 'Ran the check',
      }),
      finish: async () => ({ ok: true, output: 'Step finished.', summary: 'Finished' }),
    },
  });
  return {
    async execute(name, input) {
      const result = await executor.execute(name, input);
      return result.ok ? { ok: true, content: result.output } : { ok: false, content: result.error };
    },
  };
}

const prompt = (index: number) =>
  buildCoderUserPrompt({
    task,
    subtask: { id: `st-${index}`, title: 'Handle lists', description: 'Add the list form.', order: index },
    subtaskIndex: index,
    subtaskCount: 3,
    previousOutputs: [],
    currentFiles: [],
  });

let runs = 0;
async function tree(files: Record<string, string>) {
  const t = await makeWorktree(files);
  trees.push(t);
  return t;
}

describe('simulated coder over the real tool executor', () => {
  it('extends an existing file with an edit the executor applies, after a missed one (edit-miss@coder)', async () => {
    const t = await tree({ [names.mainFile]: mainModule({ ...task, category: 'feature' }, names) });
    const transcript = await driveOpenAi({
      url: sim.url,
      system: systemFor('coder'),
      prompt: prompt(2),
      tools: TOOL_NAMES,
      exec: realExecutor(t),
      runId: `real-${++runs}`,
      scenario: 'edit-miss@coder',
    });
    expect(callNames(transcript)).toEqual([
      ['list_files'],
      ['read_file', 'search'],
      ['edit_file'],
      ['read_file'],
      ['edit_file'],
      ['run_check'],
      ['finish'],
    ]);
    expect(transcript.turns[2]!.calls[0]!.content).toMatch(/^oldText was not found/);
    const after = (await t.read(names.mainFile)).toString();
    expect(after).toContain(`export function ${names.fn}All(`);
    expect(after.startsWith(mainModule({ ...task, category: 'feature' }, names).trimEnd())).toBe(true);
  });

  it('big-edit=<path>: one line in the middle of a 6,006-line file changes, every other byte stays', async () => {
    // Every other line is the same comment, so the middle line needs its neighbours to be unique.
    const lines = Array.from({ length: 6001 }, (_, i) => (i % 2 ? '  // step' : `  total += ${i};`));
    const big = `export function sum(): number {\n  // The steps.\n  let total = 0;\n${lines.join('\n')}\n  return total;\n}\n`;
    const t = await tree({ 'src/big.ts': big });
    const transcript = await driveAnthropic({
      url: sim.url,
      system: systemFor('coder'),
      prompt: prompt(2),
      tools: TOOL_NAMES,
      exec: realExecutor(t),
      runId: `real-${++runs}`,
      scenario: 'big-edit=src/big.ts',
    });
    expect(callNames(transcript)).toEqual([
      ['read_file'],
      ['read_file'],
      ['search'],
      ['edit_file'],
      ['run_check'],
      ['finish'],
    ]);
    expect(transcript.turns[0]!.calls[0]!.input).toEqual({ path: 'src/big.ts', startLine: 1, endLine: 20 });
    expect(transcript.turns[1]!.calls[0]!.input).toMatchObject({ startLine: 2993, endLine: 3013 });
    const edit = transcript.turns[3]!.calls[0]!.input as { oldText: string; newText: string };
    expect(edit.oldText.split('\n')).toHaveLength(3);
    const after = (await t.read('src/big.ts')).toString().split('\n');
    const before = big.split('\n');
    expect(after).toHaveLength(before.length);
    const changed = before.flatMap((line, i) => (after[i] === line ? [] : [i + 1]));
    expect(changed).toEqual([3003]);
    expect(after[3002]).toBe('  // step // Simulated one-line change (big-edit).');
    expect(transcript.finished).toMatch(
      /changed one line in the middle of src\/big\.ts\. The check passed\./,
    );
  });

  it('big-edit with a line that occurs once: oldText is that line alone', async () => {
    const lines = Array.from({ length: 301 }, (_, i) => `export const value${i} = ${i};`);
    const t = await tree({ 'src/values.ts': `${lines.join('\n')}\n` });
    const transcript = await driveOpenAi({
      url: sim.url,
      system: systemFor('coder'),
      prompt: prompt(2),
      tools: TOOL_NAMES.filter((n) => n !== 'run_check'),
      exec: realExecutor(t),
      runId: `real-${++runs}`,
      scenario: 'big-edit=src/values.ts',
    });
    expect(callNames(transcript)).toEqual([
      ['read_file'],
      ['read_file'],
      ['search'],
      ['edit_file'],
      ['finish'],
    ]);
    expect(JSON.parse(String(transcript.turns[3]!.calls[0]!.input))).toMatchObject({
      oldText: 'export const value150 = 150;',
    });
    const after = (await t.read('src/values.ts')).toString();
    expect(after).toBe(
      `${lines.map((l, i) => (i === 150 ? `${l} // Simulated one-line change (big-edit).` : l)).join('\n')}\n`,
    );
  });
});
