import { transform } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FileChanges,
  fileChangesSchema,
  type ReviewResult,
  reviewResultSchema,
  type SubtaskList,
  subtaskListSchema,
} from '@/contracts/pipeline.js';
import { createProvider } from '../providers.js';
import { SIMULATOR_NOTICE } from './content.js';
import {
  coderPrompt,
  type FixtureTask,
  GREETING,
  jsonOf,
  plannerPrompt,
  reviewerPrompt,
  systemFor,
} from './prompt-fixtures.js';
import { type SimulatorHandle, startSimulator } from './server.js';

let sim: SimulatorHandle;
beforeAll(async () => {
  sim = await startSimulator({ port: 0, chunkDelayMs: 0 });
});
afterAll(() => sim.close());

let runs = 0;
/** One call through the real SDK and HTTP, as the pipeline makes it. */
async function ask(
  agent: 'planner' | 'coder' | 'reviewer',
  prompt: string,
  scenario?: string,
): Promise<string> {
  runs += 1;
  const provider = createProvider({
    provider: 'simulator',
    simulatorUrl: sim.url,
    runId: `agents-${runs}`,
    ...(scenario ? { scenario } : {}),
  });
  const res = await provider.stream({
    agent,
    model: 'claude-sonnet-4-20250514',
    maxTokens: 8192,
    system: systemFor(agent),
    prompt,
    onText: () => {},
  });
  return res.text;
}

const plan = async (task: FixtureTask) =>
  subtaskListSchema.parse(jsonOf(await ask('planner', plannerPrompt(task))));
const code = async (prompt: string): Promise<FileChanges> =>
  fileChangesSchema.parse(jsonOf(await ask('coder', prompt)));
const review = async (prompt: string, scenario?: string): Promise<ReviewResult> =>
  reviewResultSchema.parse(jsonOf(await ask('reviewer', prompt, scenario)));

async function expectValidTypeScript(source: string) {
  await expect(transform(source, { loader: 'ts' })).resolves.toBeDefined();
}

describe('simulated planner', () => {
  it('plans 2 or 3 subtasks for the task, naming the files the coder will write', async () => {
    const list: SubtaskList = await plan(GREETING);
    expect(list.subtasks.map((s) => s.id)).toEqual(['st-1', 'st-2', 'st-3']);
    expect(list.subtasks.map((s) => s.order)).toEqual([1, 2, 3]);
    expect(list.subtasks[0]!.files).toEqual(['src/add-greeting-helper.ts']);
    expect(list.subtasks[2]!.files).toEqual(['docs/add-greeting-helper.md']);
    const docs = await plan({ title: 'Explain setup', category: 'docs', description: '' });
    expect(docs.subtasks).toHaveLength(2);
    expect(docs.subtasks[0]!.files).toEqual(['docs/explain-setup.md']);
  });

  it('starts with one sentence of thinking before the JSON', async () => {
    const text = await ask('planner', plannerPrompt(GREETING));
    expect(text.split('\n')[0]).toMatch(/^Simulated planner: .+\.$/);
  });
});

describe('simulated coder', () => {
  it('creates a small module named after the task in subtask 1, marked as simulated', async () => {
    const { files } = await code(coderPrompt(GREETING, { subtask: { index: 1, total: 3, title: 'Create' } }));
    expect(files).toHaveLength(1);
    const [file] = files;
    expect(file).toMatchObject({
      filePath: 'src/add-greeting-helper.ts',
      language: 'typescript',
      action: 'create',
    });
    expect(file!.content.split('\n')[0]).toBe(`// ${SIMULATOR_NOTICE}`);
    expect(file!.content).toContain('export function addGreetingHelper(input: string): string');
    await expectValidTypeScript(file!.content);
  });

  it('extends the current file in a later subtask, keeping what is there', async () => {
    const current = '// existing line kept\nexport const x = 1;\n';
    const { files } = await code(
      coderPrompt(GREETING, {
        subtask: { index: 2, total: 3, title: 'Lists' },
        currentFiles: [{ path: 'src/add-greeting-helper.ts', content: current }],
      }),
    );
    expect(files[0]).toMatchObject({ filePath: 'src/add-greeting-helper.ts', action: 'modify' });
    expect(files[0]!.content.startsWith(current)).toBe(true);
    expect(files[0]!.content).toContain('export function addGreetingHelperAll(');
  });

  it('rebuilds the file of subtask 1 when the prompt shows no current content', async () => {
    const { files } = await code(coderPrompt(GREETING, { subtask: { index: 2, total: 3, title: 'Lists' } }));
    expect(files[0]!.action).toBe('modify');
    expect(files[0]!.content).toContain('export function addGreetingHelper(');
    expect(files[0]!.content).toContain('export function addGreetingHelperAll(');
    await expectValidTypeScript(files[0]!.content);
  });

  it('writes a test file for test tasks and a page for docs tasks', async () => {
    const testTask: FixtureTask = { title: 'Cover parser', category: 'test', description: 'More tests.' };
    const tests = await code(coderPrompt(testTask, { subtask: { index: 2, total: 2, title: 'Test it' } }));
    expect(tests.files[0]).toMatchObject({ filePath: 'tests/cover-parser.test.ts', action: 'create' });
    expect(tests.files[0]!.content).toContain("from '../src/cover-parser.js'");
    await expectValidTypeScript(tests.files[0]!.content);

    const docsTask: FixtureTask = {
      title: 'Explain setup',
      category: 'docs',
      description: 'How to install.',
    };
    const docs = await code(coderPrompt(docsTask, { subtask: { index: 1, total: 2, title: 'Write' } }));
    expect(docs.files[0]).toMatchObject({ filePath: 'docs/explain-setup.md', language: 'markdown' });
    expect(docs.files[0]!.content).toContain('# Explain setup');
    expect(docs.files[0]!.content).toContain('How to install.');
  });

  it('in fix mode modifies the same files, answering each finding', async () => {
    const current = (await code(coderPrompt(GREETING, { subtask: { index: 1, total: 3, title: 'Create' } })))
      .files[0]!;
    const findings = ['[error] src/add-greeting-helper.ts:1 — reject blank input', '[warning] name is vague'];
    const { files } = await code(
      coderPrompt(GREETING, {
        fixIteration: 1,
        findings,
        currentFiles: [{ path: current.filePath, content: current.content }],
      }),
    );
    expect(files.map((f) => [f.filePath, f.action])).toEqual([['src/add-greeting-helper.ts', 'modify']]);
    expect(files[0]!.content.startsWith(current.content)).toBe(true);
    expect(files[0]!.content).toContain('export function assertValidAddGreetingHelperInput(');
    for (const finding of findings) expect(files[0]!.content).toContain(finding);
    await expectValidTypeScript(files[0]!.content);
  });

  it('keeps its JSON parseable when a current file holds code fences', async () => {
    const readme = '# Readme\n\n```sh\nnpm test\n```\n';
    const text = await ask(
      'coder',
      coderPrompt(GREETING, {
        fixIteration: 0,
        findings: ['typo'],
        currentFiles: [{ path: 'README.md', content: readme }],
      }),
    );
    // The pipeline's extractor ends a fence at the next ``` it meets.
    const body = /```(\w*)[^\n]*\n([\s\S]*?)\n?```/.exec(text)?.[2];
    const { files } = fileChangesSchema.parse(JSON.parse(body ?? ''));
    expect(files[0]!.content.startsWith(readme)).toBe(true);
  });
});

describe('simulated reviewer', () => {
  const changed = ['src/add-greeting-helper.ts', 'docs/add-greeting-helper.md'];

  it('passes with score 88 and an info finding on a changed file', async () => {
    const result = await review(reviewerPrompt(GREETING, 0, changed));
    expect(result).toMatchObject({ passed: true, score: 88 });
    expect(result.findings[0]).toMatchObject({ severity: 'info', file: changed[0], line: 1 });
  });

  it('with review-fails=2 fails at iterations 0 and 1 and passes at 2', async () => {
    const task = { ...GREETING, description: 'Greet people. [simulate: review-fails=2]' };
    const results = [];
    for (const iteration of [0, 1, 2]) results.push(await review(reviewerPrompt(task, iteration, changed)));
    expect(results.map((r) => [r.passed, r.score])).toEqual([
      [false, 55],
      [false, 55],
      [true, 88],
    ]);
    expect(results[0]!.findings).toHaveLength(1);
    expect(results[0]!.findings[0]).toMatchObject({ severity: 'error', file: changed[0] });
  });

  it('takes the scenario from the provider (header) over the prompt', async () => {
    const task = { ...GREETING, description: '[simulate: review-fails=3]' };
    expect((await review(reviewerPrompt(task, 0, changed), 'review-fails=0')).passed).toBe(true);
    expect((await review(reviewerPrompt(task, 0, changed))).passed).toBe(false);
  });
});

describe('scripted misbehaviour', () => {
  it('malformed@coder answers prose with nothing to parse, once', async () => {
    const prompt = `${coderPrompt(GREETING, { subtask: { index: 1, total: 1, title: 'x' } })}\n[simulate: malformed@coder]`;
    const provider = createProvider({ provider: 'simulator', simulatorUrl: sim.url, runId: 'malformed-run' });
    const call = () =>
      provider.stream({
        agent: 'coder',
        model: 'm',
        maxTokens: 4096,
        system: systemFor('coder'),
        prompt,
        onText: () => {},
      });
    const first = await call();
    expect(first.text).not.toMatch(/[{}]/);
    expect(fileChangesSchema.safeParse(jsonOf((await call()).text)).success).toBe(true);
  });

  it('answers a prompt without a known role line with a plain note that it is a simulator', async () => {
    const provider = createProvider({ provider: 'simulator', simulatorUrl: sim.url });
    const res = await provider.stream({
      agent: 'planner',
      model: 'm',
      maxTokens: 1024,
      system: 'You are helpful.',
      prompt: 'Hello?',
      onText: () => {},
    });
    expect(res.text).toMatch(/offline simulator, not an AI model/);
  });
});
