// The real Codex CLI with the simulator as its model (the Responses API), doing AutoCoder coder steps in a temp repository.
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCoderLoopPrompt } from '@/server/modules/pipeline/prompts/coder-loop-prompt.js';
import { ENGINE_ROLE_LINE } from './engine-prompts.js';
import {
  CLI_TEST_TIMEOUT_MS,
  type CliResult,
  CODEX_BIN,
  intendedFiles,
  runCli,
  type Sandbox,
  sandbox,
  skipEngine,
} from './engine-test-kit.js';
import { type SimulatorHandle, startSimulator } from './server.js';

const task = { title: 'Add greeting helper', category: 'feature', description: 'Greet a user by name.' };
const MAIN = 'src/add-greeting-helper.ts';
const plan = [
  { id: 'st-1', title: `Create ${MAIN}`, description: 'Add it.', order: 1, files: [MAIN] },
  { id: 'st-2', title: 'Handle lists', description: 'Add the list form.', order: 2, files: [MAIN] },
];
const stepParams = (index: 1 | 2, description = task.description) => ({
  task: { ...task, description },
  subtask: plan[index - 1]!,
  subtaskIndex: index,
  subtaskCount: 2,
  previousOutputs: [],
});

const INSTRUCTIONS = [
  ENGINE_ROLE_LINE('codex'),
  'You are the coder of an AutoCoder run: do the step below in this repository, then say what you changed.',
].join('\n');

/** A TOML inline table of string values. */
const toml = (values: Record<string, string>) =>
  `{${Object.entries(values)
    .map(([key, value]) => `${JSON.stringify(key)}=${JSON.stringify(value)}`)
    .join(',')}}`;

describe.skipIf(skipEngine(CODEX_BIN))('Codex with the simulator as its model', () => {
  let sim: SimulatorHandle;
  const boxes: Sandbox[] = [];
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, chunkDelayMs: 0 });
  });
  afterAll(async () => {
    await sim?.close();
    for (const box of boxes) await box.cleanup();
  });

  async function codex(
    box: Sandbox,
    step: string,
    opts: { headers?: Record<string, string>; retries?: number } = {},
  ) {
    const codexHome = join(box.home, '.codex');
    await mkdir(codexHome, { recursive: true });
    const provider = [
      'model_providers.autocoder={name="autocoder"',
      `base_url=${JSON.stringify(`${sim.url}/v1`)}`,
      'env_key="CODEX_RELAY_CREDENTIAL"',
      'wire_api="responses"',
      ...(opts.headers ? [`http_headers=${toml(opts.headers)}`] : []),
      ...(opts.retries !== undefined
        ? [`request_max_retries=${opts.retries}`, `stream_max_retries=${opts.retries}`]
        : []),
    ].join(',');
    return runCli(
      CODEX_BIN,
      [
        'exec',
        '--json',
        '--skip-git-repo-check',
        '-s',
        'danger-full-access',
        '-c',
        'approval_policy="never"',
        '-c',
        'model_provider="autocoder"',
        '-c',
        `${provider}}`,
        '-c',
        'analytics.enabled=false',
        '-m',
        'gpt-5-codex',
        `${INSTRUCTIONS}\n\n${step}`,
      ],
      box.repo,
      { HOME: box.home, CODEX_HOME: codexHome, CODEX_RELAY_CREDENTIAL: 'sk-relay-placeholder' },
    );
  }

  const items = (run: CliResult) =>
    run.events.filter((e) => e.type === 'item.completed').map((e) => e.item as Record<string, unknown>);
  const commands = (run: CliResult) =>
    items(run)
      .filter((item) => item.type === 'command_execution')
      .map((item) => ({ command: String(item.command), exit: item.exit_code }));
  const finalMessage = (run: CliResult) =>
    items(run)
      .filter((item) => item.type === 'agent_message')
      .map((item) => String(item.text))
      .at(-1);

  async function box(files: Record<string, string> = {}) {
    const made = await sandbox(files);
    boxes.push(made);
    return made;
  }

  it(
    'writes the step’s new file with exec_command, then ends with a summary',
    async () => {
      const repo = await box();
      const run = await codex(repo, buildCoderLoopPrompt(stepParams(1)));
      const want = intendedFiles(stepParams(1), {});
      expect(run.code, run.stderr).toBe(0);
      expect(run.events.some((e) => e.type === 'turn.completed')).toBe(true);
      expect(finalMessage(run)).toContain(`Changed ${MAIN}`);
      for (const [path, content] of want) expect(await readFile(join(repo.repo, path), 'utf8')).toBe(content);
      const ran = commands(run);
      expect(ran).toHaveLength(2);
      expect(ran.every((c) => c.exit === 0)).toBe(true);
      expect(ran[1]!.command).toContain(`cat > '${MAIN}' <<'AUTOCODER_EOF'`);
      const usage = run.events.find((e) => e.type === 'turn.completed')?.usage as Record<string, number>;
      expect(usage.input_tokens).toBeGreaterThan(0);
      expect(usage.output_tokens).toBeGreaterThan(0);
      console.info(`codex, new file: ${run.ms} ms`);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'extends an existing file after reading it, with a slow command first (engine-sleep, as a header)',
    async () => {
      const first = intendedFiles(stepParams(1), {});
      const repo = await box(Object.fromEntries(first));
      const run = await codex(repo, buildCoderLoopPrompt(stepParams(2)), {
        headers: { 'x-autocoder-run-id': 'run-sleep', 'x-simulator-scenario': 'engine-sleep=1' },
      });
      const want = intendedFiles(stepParams(2), Object.fromEntries(first));
      expect(run.code, run.stderr).toBe(0);
      expect(finalMessage(run)).toContain(`Changed ${MAIN}`);
      for (const [path, content] of want) expect(await readFile(join(repo.repo, path), 'utf8')).toBe(content);
      expect(want.get(MAIN)).not.toBe(first.get(MAIN));
      const ran = commands(run);
      expect(ran[0]!.command).toContain('&& sleep 1');
      expect(ran).toHaveLength(3);
      console.info(`codex, existing file and sleep: ${run.ms} ms`);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'plays error=<status>@coder for the run named by x-autocoder-run-id',
    async () => {
      const repo = await box();
      const run = await codex(repo, buildCoderLoopPrompt(stepParams(1)), {
        headers: { 'x-autocoder-run-id': 'run-401', 'x-simulator-scenario': 'error=401@coder x20' },
        retries: 0,
      });
      expect(run.code).not.toBe(0);
      expect(JSON.stringify(run.events)).toContain('401');
      await expect(readFile(join(repo.repo, MAIN), 'utf8')).rejects.toThrow();
      console.info(`codex, 401: ${run.ms} ms`);
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
