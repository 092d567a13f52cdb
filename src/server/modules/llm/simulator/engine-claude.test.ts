// The real Claude Code CLI with the simulator as its model, doing AutoCoder coder steps in a temp repository.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCoderLoopPrompt } from '@/server/modules/pipeline/prompts/coder-loop-prompt.js';
import { ENGINE_ROLE_LINE } from './engine-prompts.js';
import {
  CLAUDE_BIN,
  CLI_TEST_TIMEOUT_MS,
  type CliResult,
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
  ENGINE_ROLE_LINE('claude-code'),
  'You are the coder of an AutoCoder run: do the step below in this repository, then say what you changed.',
].join('\n');

describe.skipIf(skipEngine(CLAUDE_BIN))('Claude Code with the simulator as its model', () => {
  let sim: SimulatorHandle;
  const boxes: Sandbox[] = [];
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, chunkDelayMs: 0 });
  });
  afterAll(async () => {
    await sim?.close();
    for (const box of boxes) await box.cleanup();
  });

  async function claude(box: Sandbox, step: string, env: Record<string, string> = {}, extra: string[] = []) {
    return runCli(
      CLAUDE_BIN,
      [
        '-p',
        '--output-format',
        'stream-json',
        '--verbose',
        '--permission-mode',
        'bypassPermissions',
        ...extra,
        '--append-system-prompt',
        INSTRUCTIONS,
        step,
      ],
      box.repo,
      {
        HOME: box.home,
        ANTHROPIC_BASE_URL: sim.url,
        ANTHROPIC_API_KEY: 'sk-ant-relay-placeholder',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
        IS_SANDBOX: '1',
        ...env,
      },
    );
  }

  const resultOf = (run: CliResult) => run.events.find((e) => e.type === 'result');
  /** The tool calls Claude Code made, from its assistant messages. */
  const toolUses = (run: CliResult) =>
    run.events
      .filter((e) => e.type === 'assistant')
      .flatMap(
        (e) => ((e.message as { content?: unknown[] })?.content ?? []) as Array<Record<string, unknown>>,
      )
      .filter((block) => block.type === 'tool_use')
      .map((block) => ({ name: String(block.name), input: block.input as Record<string, unknown> }));

  async function box(files: Record<string, string> = {}) {
    const made = await sandbox(files);
    boxes.push(made);
    return made;
  }

  it(
    'writes the step’s new file with Write, then ends with a summary',
    async () => {
      const repo = await box();
      const run = await claude(repo, buildCoderLoopPrompt(stepParams(1)));
      const want = intendedFiles(stepParams(1), {});
      expect(run.code, run.stderr).toBe(0);
      const result = resultOf(run);
      expect(result).toMatchObject({ subtype: 'success', is_error: false });
      expect(String(result?.result)).toContain(`Changed ${MAIN}`);
      for (const [path, content] of want) expect(await readFile(join(repo.repo, path), 'utf8')).toBe(content);
      const calls = toolUses(run);
      expect(calls.map((c) => c.name)).toEqual(['Bash', 'Write']);
      expect(calls[1]!.input).toMatchObject({ file_path: MAIN });
      console.info(`claude-code, new file: ${run.ms} ms`);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'extends an existing file after reading it, with a slow command first (engine-sleep)',
    async () => {
      const first = intendedFiles(stepParams(1), {});
      const repo = await box(Object.fromEntries(first));
      const description = `${task.description}\n[simulate: engine-sleep=1]`;
      const run = await claude(repo, buildCoderLoopPrompt(stepParams(2, description)));
      const want = intendedFiles(stepParams(2, description), Object.fromEntries(first));
      expect(run.code, run.stderr).toBe(0);
      expect(resultOf(run)).toMatchObject({ subtype: 'success', is_error: false });
      for (const [path, content] of want) expect(await readFile(join(repo.repo, path), 'utf8')).toBe(content);
      expect(want.get(MAIN)).not.toBe(first.get(MAIN));
      const calls = toolUses(run);
      expect(calls[0]).toMatchObject({
        name: 'Bash',
        input: { command: expect.stringContaining('&& sleep 1') },
      });
      expect(calls.map((c) => c.name)).toEqual(['Bash', 'Bash', 'Read', 'Write']);
      console.info(`claude-code, existing file and sleep: ${run.ms} ms`);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'stops with what failed when a PreToolUse hook denies the write',
    async () => {
      const repo = await box();
      const reason = `${MAIN} is locked by the coder of task 7`;
      const deny = JSON.stringify({
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: 'deny',
          permissionDecisionReason: reason,
        },
      });
      const settings = {
        hooks: {
          PreToolUse: [{ matcher: 'Write|Edit', hooks: [{ type: 'command', command: `echo '${deny}'` }] }],
        },
      };
      const run = await claude(repo, buildCoderLoopPrompt(stepParams(1)), {}, [
        '--settings',
        JSON.stringify(settings),
      ]);
      expect(run.code, run.stderr).toBe(0);
      const result = String(resultOf(run)?.result);
      expect(result).toContain(`Could not change ${MAIN}`);
      expect(result).toContain('locked by the coder of task 7');
      await expect(readFile(join(repo.repo, MAIN), 'utf8')).rejects.toThrow();
      expect(toolUses(run).map((c) => c.name)).toEqual(['Bash', 'Write']);
      console.info(`claude-code, write denied: ${run.ms} ms`);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'plays error=<status>@coder for the run named by x-autocoder-run-id: a 429 retried, a 401 fatal',
    async () => {
      const repo = await box();
      const headers = (runId: string, scenario: string) => ({
        ANTHROPIC_CUSTOM_HEADERS: `x-autocoder-run-id: ${runId}\nx-simulator-scenario: ${scenario}`,
      });
      // Claude Code retries a 429 (after retry-after: 1 s): the step then goes on.
      const limited = await claude(
        repo,
        buildCoderLoopPrompt(stepParams(1)),
        headers('run-429', 'error=429@coder'),
      );
      expect(limited.code, limited.stderr).toBe(0);
      expect(resultOf(limited)).toMatchObject({ is_error: false });
      expect(await readFile(join(repo.repo, MAIN), 'utf8')).toBe(intendedFiles(stepParams(1), {}).get(MAIN));

      // It retries a 401 too, ten times over minutes, unless told not to.
      const other = await box();
      const refused = await claude(other, buildCoderLoopPrompt(stepParams(1)), {
        ...headers('run-401', 'error=401@coder x20'),
        CLAUDE_CODE_MAX_RETRIES: '0',
      });
      expect(refused.code).not.toBe(0);
      expect(resultOf(refused)).toMatchObject({ is_error: true, api_error_status: 401 });
      await expect(readFile(join(other.repo, MAIN), 'utf8')).rejects.toThrow();
      console.info(`claude-code, 429 then 401: ${limited.ms} + ${refused.ms} ms`);
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
