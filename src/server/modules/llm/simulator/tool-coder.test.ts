// The tool-using coder, turn after turn through the real SDKs, over a temp directory.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileChangesSchema } from '@/contracts/pipeline.js';
import { TOOL_NAMES, type ToolName } from '@/server/modules/agent-tools/tool-declarations.js';
import { buildCoderLoopPrompt } from '@/server/modules/pipeline/prompts/coder-loop-prompt.js';
import {
  buildCoderUserPrompt,
  type CoderPromptParams,
} from '@/server/modules/pipeline/prompts/coder-prompt.js';
import { answerFor, resolveConflictMarkers } from './agents.js';
import { parsePrompt } from './prompt.js';
import { jsonOf, systemFor } from './prompt-fixtures.js';
import { parseScenario } from './scenario.js';
import { type SimulatorHandle, startSimulator } from './server.js';
import {
  callNames,
  type DriveOptions,
  driveAnthropic,
  driveOpenAi,
  type TempRepo,
  tempRepo,
  tinyExecutor,
} from './tool-test-kit.js';

let sim: SimulatorHandle;
const repos: TempRepo[] = [];
beforeAll(async () => {
  sim = await startSimulator({ port: 0, chunkDelayMs: 0 });
});
afterAll(async () => {
  await sim.close();
  for (const repo of repos) await repo.cleanup();
});

const task = { title: 'Add greeting helper', category: 'feature', description: 'Greet a user by name.' };
const MAIN = 'src/add-greeting-helper.ts';
const plan = [
  { id: 'st-1', title: `Create ${MAIN}`, description: 'Add it.', order: 1, files: [MAIN] },
  { id: 'st-2', title: 'Handle lists', description: 'Add the list form.', order: 2, files: [MAIN] },
];

const subtaskParams = (index: 1 | 2, description = task.description) => ({
  task: { ...task, description },
  subtask: plan[index - 1]!,
  subtaskIndex: index,
  subtaskCount: 3,
  previousOutputs: [],
});

/** The tool-using coder's first message, as the pipeline builds it. */
const subtaskPrompt = (index: 1 | 2, description?: string) =>
  buildCoderLoopPrompt(subtaskParams(index, description));

/** What the one-shot coder answers for the same step when shown `current`: the demo's files. */
function oneShot(params: Omit<CoderPromptParams, 'currentFiles'>, current: Record<string, string>) {
  const currentFiles = Object.entries(current).map(([path, content]) => ({
    path,
    content,
    truncated: false,
    size: Buffer.byteLength(content),
  }));
  const prompt = buildCoderUserPrompt({ ...params, currentFiles });
  const answer = answerFor(parsePrompt(systemFor('coder'), prompt), parseScenario(''));
  return new Map(fileChangesSchema.parse(jsonOf(answer)).files.map((f) => [f.filePath, f.content]));
}

let runs = 0;
async function coder(
  drive: typeof driveAnthropic,
  repo: TempRepo,
  prompt: string,
  extra: Partial<DriveOptions> = {},
  check?: () => Promise<boolean>,
) {
  runs += 1;
  return drive({
    url: sim.url,
    system: systemFor('coder'),
    prompt,
    tools: TOOL_NAMES,
    exec: tinyExecutor(repo.root, check ?? (async () => true)),
    runId: `tool-coder-${runs}`,
    ...extra,
  });
}

async function repoWith(files: Record<string, string>) {
  const repo = await tempRepo({ 'README.md': '# demo\n', ...files });
  repos.push(repo);
  return repo;
}

describe('simulated coder with tools', () => {
  it('creates a new file, then extends it with edit_file, as the one-shot coder would have written them', async () => {
    const repo = await repoWith({});
    const first = await coder(driveAnthropic, repo, subtaskPrompt(1));
    expect(callNames(first)).toEqual([['list_files'], ['search'], ['write_file'], ['run_check'], ['finish']]);
    expect(first.turns.every((t) => t.text.length > 0)).toBe(true);
    expect(first.turns.at(-1)!.stop).toBe('tool_use');
    const created = await repo.read(MAIN);
    expect(created).toBe(oneShot(subtaskParams(1), {}).get(MAIN));

    const second = await coder(driveAnthropic, repo, subtaskPrompt(2));
    expect(callNames(second)).toEqual([
      ['list_files'],
      ['read_file', 'search'],
      ['edit_file'],
      ['run_check'],
      ['finish'],
    ]);
    const edit = second.turns[2]!.calls[0]!.input as { oldText: string; newText: string };
    expect(created.split(edit.oldText)).toHaveLength(2);
    expect(edit.oldText).not.toMatch(/^\s*\d+\t/m);
    expect(await repo.read(MAIN)).toBe(oneShot(subtaskParams(2), { [MAIN]: created }).get(MAIN));
    expect(second.finished).toMatch(
      /Changed src\/add-greeting-helper\.ts \(edit_file\)\. The check passes\./,
    );
  });

  it('answers review findings in fix mode over OpenAI, with the one-shot fix’s content', async () => {
    const main = oneShot(subtaskParams(1), {}).get(MAIN)!;
    const repo = await repoWith({ [MAIN]: main });
    const params = {
      task,
      subtask: null,
      iteration: 1,
      reviewFindings: {
        passed: false,
        score: 55,
        findings: [{ severity: 'error' as const, file: MAIN, line: 1, message: 'Reject blank input.' }],
      },
      previousOutputs: [{ filePath: MAIN, action: 'create' as const }],
    };
    const prompt = buildCoderLoopPrompt(params);
    const t = await coder(driveOpenAi, repo, prompt);
    expect(callNames(t)).toEqual([
      ['list_files'],
      ['read_file', 'search'],
      ['edit_file'],
      ['run_check'],
      ['finish'],
    ]);
    expect(t.turns.at(-1)!.stop).toBe('tool_calls');
    expect(await repo.read(MAIN)).toBe(oneShot(params, { [MAIN]: main }).get(MAIN));
    expect(await repo.read(MAIN)).toContain('Reject blank input.');
  });

  it('resolves the merge conflicts its prompt lists, keeping both sides as the one-shot coder does', async () => {
    const conflicted =
      'export const a = 1;\n<<<<<<< ours\nexport const b = 2;\n=======\nexport const c = 3;\n>>>>>>> theirs\n';
    const repo = await repoWith({ 'src/merge.ts': conflicted, [MAIN]: 'x\n' });
    const prompt = buildCoderLoopPrompt({
      task,
      subtask: null,
      iteration: 2,
      previousOutputs: [],
      conflicts: ['src/merge.ts'],
    });
    const t = await coder(driveAnthropic, repo, prompt);
    expect(callNames(t)).toEqual([
      ['list_files'],
      ['read_file', 'search'],
      ['edit_file'],
      ['run_check'],
      ['finish'],
    ]);
    expect(await repo.read('src/merge.ts')).toBe(resolveConflictMarkers(conflicted));
    expect(await repo.read('src/merge.ts')).toBe(
      'export const a = 1;\nexport const b = 2;\nexport const c = 3;\n',
    );
  });

  it('check-fix: writes the scripted file after a failed run_check, then runs the check again', async () => {
    const repo = await repoWith({});
    const t = await coder(driveAnthropic, repo, subtaskPrompt(1), { scenario: 'check-fix=fixed.txt' }, () =>
      repo.has('fixed.txt'),
    );
    expect(callNames(t).slice(3)).toEqual([['run_check'], ['write_file'], ['run_check'], ['finish']]);
    expect(t.turns[3]!.calls[0]!.content).toMatch(/^The check failed/);
    expect(await repo.read('fixed.txt')).toContain('for the failing check: The check failed, exit 1');
    expect(t.finished).toContain('The check passes.');
  });

  it('without run_check among the tools, finishes after its change', async () => {
    const repo = await repoWith({});
    const tools = TOOL_NAMES.filter((n) => n !== 'run_check') as ToolName[];
    const t = await coder(driveOpenAi, repo, subtaskPrompt(1), { tools });
    expect(callNames(t)).toEqual([['list_files'], ['search'], ['write_file'], ['finish']]);
  });
});

describe('tool directives', () => {
  it('tool-error@coder (a [simulate: …] marker in the first message): one unknown tool, then the step', async () => {
    const repo = await repoWith({});
    const t = await coder(driveAnthropic, repo, subtaskPrompt(1, 'Greet. [simulate: tool-error@coder]'));
    expect(t.turns[0]!.calls).toMatchObject([
      { ok: false, content: expect.stringContaining('unknown tool') },
    ]);
    expect(callNames(t).slice(1)).toEqual([
      ['list_files'],
      ['search'],
      ['write_file'],
      ['run_check'],
      ['finish'],
    ]);
    expect(await repo.has(MAIN)).toBe(true);
  });

  it('edit-miss@coder: the first edit misses, the coder reads the file again and the retry applies', async () => {
    const created = oneShot(subtaskParams(1), {}).get(MAIN)!;
    for (const drive of [driveAnthropic, driveOpenAi]) {
      const repo = await repoWith({ [MAIN]: created });
      const t = await coder(drive, repo, subtaskPrompt(2), { scenario: 'edit-miss@coder' });
      expect(callNames(t)).toEqual([
        ['list_files'],
        ['read_file', 'search'],
        ['edit_file'],
        ['read_file'],
        ['edit_file'],
        ['run_check'],
        ['finish'],
      ]);
      expect(t.turns[2]!.calls[0]).toMatchObject({
        ok: false,
        content: expect.stringContaining('not found'),
      });
      expect(t.turns[4]!.calls[0]!.ok).toBe(true);
      expect(await repo.read(MAIN)).toBe(oneShot(subtaskParams(2), { [MAIN]: created }).get(MAIN));
    }
  });

  it('loop@coder: valid read-only calls, turn after turn, and never finish', async () => {
    const repo = await repoWith({ 'src/a.ts': 'export const a = 1;\n' });
    const t = await coder(driveAnthropic, repo, subtaskPrompt(1), { scenario: 'loop@coder', maxTurns: 12 });
    expect(t.turns).toHaveLength(12);
    expect(t.finished).toBeUndefined();
    const calls = t.turns.flatMap((turn) => turn.calls);
    expect(calls.every((c) => c.ok && ['list_files', 'read_file', 'search'].includes(c.name))).toBe(true);
    expect(new Set(calls.map((c) => c.name)).size).toBe(3);
  });

  it('bad-calls@coder: every call is refused, on both protocols', async () => {
    for (const drive of [driveAnthropic, driveOpenAi]) {
      const repo = await repoWith({});
      const t = await coder(drive, repo, subtaskPrompt(1), { scenario: 'bad-calls@coder', maxTurns: 6 });
      expect(t.turns).toHaveLength(6);
      const calls = t.turns.flatMap((turn) => turn.calls);
      expect(calls.length).toBe(6);
      expect(calls.every((c) => !c.ok)).toBe(true);
    }
  });
});
