import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ScriptedEndpoint,
  type ScriptedTurn,
  startScriptedEndpoint,
} from '../agent-tools/testing/scripted-endpoint.js';
import { LlmError } from '../llm/provider.js';
import { pidsRunning } from '../sandbox/sandbox-testing.js';
import { createClaudeCodeEngine } from './claude-code-engine.js';
import { createEngineCatalog } from './engine-catalog.js';
import { EngineFailedError } from './engine-errors.js';
import { RELAY_PORT } from './engine-process.js';
import { engineTargetOf } from './engine-target.js';
import { type EngineGround, engineGround, engineStep, engineTestsSkipped } from './engine-testing.js';

const PATH = process.env.PATH ?? '/usr/bin:/bin';
// CI sets it: a missing engine fails the tests there instead of skipping them.
const skipped = engineTestsSkipped('claude-code', process.env.AUTOCODER_TEST_ENGINES === 'required', PATH);

/** The person's key: it must reach the endpoint, and nothing else. */
const KEY = 'sk-ant-api03-person-key-for-the-engine-test-0123456789';

describe.skipIf(skipped)('Claude Code as the coder engine (the real CLI in the sandbox)', () => {
  let ground: EngineGround;
  let endpoint: ScriptedEndpoint;
  let script: (turn: number, results: { content: string; isError: boolean }[]) => ScriptedTurn;
  const catalog = createEngineCatalog({ sandboxRefusal: () => null });

  beforeAll(async () => {
    ground = await engineGround(PATH);
    endpoint = await startScriptedEndpoint((request) => {
      if (request.agent !== 'coder') return { text: 'ok' };
      return script(request.turn, request.results);
    });
  });
  afterAll(async () => {
    await endpoint?.close();
    await ground?.sandbox.close();
    if (ground) await rm(ground.fx.root, { recursive: true, force: true });
  });

  function engine(key = KEY) {
    const target = engineTargetOf(
      'claude-code',
      { provider: 'anthropic', anthropicKey: key, anthropicBaseUrl: endpoint.url, runId: 'run-1' },
      { simulatorUrl: '' },
    );
    return createClaudeCodeEngine({
      sandbox: ground.sandbox,
      binary: () => catalog.binary('claude-code'),
      target,
    });
  }

  it('writes the step through its tools, under the lock rules, and reports it as the timeline', async () => {
    script = (turn) =>
      turn === 0
        ? {
            text: 'Adding the greeting.',
            calls: [
              { name: 'Write', input: { file_path: 'src/greet.ts', content: 'export const hi = 1;\n' } },
            ],
          }
        : { text: 'Added src/greet.ts with the greeting.' };
    const { step, shown, written } = engineStep(ground.worktree, 'Add a greeting in src/greet.ts');
    const result = await engine().run(step);

    expect(await readFile(path.join(ground.worktree, 'src/greet.ts'), 'utf8')).toBe('export const hi = 1;\n');
    expect(written).toEqual(['src/greet.ts']);
    expect(result.summary).toBe('Added src/greet.ts with the greeting.');
    expect(result.toolCalls).toBe(1);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(shown.text).toContain('Adding the greeting.');
    expect(shown.calls).toMatchObject([{ tool: 'Write', engine: 'claude-code' }]);
    expect(shown.results).toMatchObject([
      { tool: 'write_file', ok: true, change: { path: 'src/greet.ts', added: 1, removed: 0 } },
    ]);
    // The relay put the person's key on the request; the engine itself only ever had a placeholder.
    const coder = endpoint.requests.filter((r) => r.agent === 'coder');
    expect(coder.length).toBeGreaterThanOrEqual(2);
    expect(coder.map((r) => r.apiKey)).toEqual(coder.map(() => KEY));
  });

  it('is denied an edit of a file another agent holds, with the holder named', async () => {
    script = (turn, results) =>
      turn === 0
        ? { calls: [{ name: 'Write', input: { file_path: 'src/held.ts', content: 'mine\n' } }] }
        : { text: `Could not write: ${results[0]?.content ?? ''}` };
    const { step, shown } = engineStep(ground.worktree, 'Change src/held.ts', {
      refuse: (file) =>
        file === 'src/held.ts' ? `'src/held.ts' is being written by 'Claude (other)'` : null,
    });
    const result = await engine().run(step);

    await expect(readFile(path.join(ground.worktree, 'src/held.ts'), 'utf8')).rejects.toThrow();
    expect(shown.results).toMatchObject([{ ok: false }]);
    expect(shown.results[0]?.summary).toContain('Claude (other)');
    expect(result.summary).toContain('Claude (other)');
  });

  it('keeps the credential out of the sandbox, the data dir out of sight and loopback out of reach', async () => {
    const port = new URL(endpoint.url).port;
    const command = [
      'env',
      `cat ${ground.fx.otherRepoFile}`,
      `cat ${ground.fx.databaseFile}`,
      `(echo > /dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo loopback-reached || echo loopback-refused`,
      // The same probe reaches the relay on the sandbox's own loopback: the probe itself works.
      `(echo > /dev/tcp/127.0.0.1/${RELAY_PORT}) 2>/dev/null && echo relay-reached || echo relay-refused`,
      'echo done',
    ].join('; ');
    let seen = '';
    script = (turn, results) => {
      if (turn === 0) return { calls: [{ name: 'Bash', input: { command } }] };
      seen = results[0]?.content ?? '';
      return { text: 'Looked around.' };
    };
    const { step, shown } = engineStep(ground.worktree, 'Look around');
    await engine().run(step);

    expect(seen).toContain('done');
    // The model endpoint listens on the host's loopback: the sandbox has a loopback of its own.
    expect(seen).toContain('loopback-refused');
    expect(seen).toContain('relay-reached');
    expect(seen).toContain('ANTHROPIC_BASE_URL=http://127.0.0.1:');
    expect(seen).not.toContain(KEY);
    expect(seen).not.toContain('other project');
    expect(seen).not.toMatch(/^17$/m);
    expect(JSON.stringify(shown)).not.toContain(KEY);
  });

  it('turns a refused key into an authentication error, without the key', async () => {
    script = () => ({ refuse: { status: 401, message: `invalid x-api-key ${KEY}` } });
    const { step } = engineStep(ground.worktree, 'Anything');
    const error = await engine()
      .run(step)
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(LlmError);
    expect((error as LlmError).kind).toBe('auth');
    expect((error as Error).message).not.toContain(KEY);
  });

  it('ends its whole process group when the step is cancelled', async () => {
    const token = `sleep ${900_000 + Math.floor(Math.random() * 9999)}`;
    let running!: () => void;
    const started = new Promise<void>((resolve) => {
      running = resolve;
    });
    script = (turn) => {
      if (turn === 0) {
        setTimeout(running, 0);
        // Claude Code refuses a bare `sleep`: the test's long command is a shell's.
        return { calls: [{ name: 'Bash', input: { command: `sh -c '${token}'` } }] };
      }
      return { text: 'done' };
    };
    const cancel = new AbortController();
    const { step } = engineStep(ground.worktree, 'Sleep', { signal: cancel.signal });
    const run = engine()
      .run(step)
      .catch((caught: unknown) => caught);
    await started;
    // The sleep is running in the sandbox once its pid shows.
    while ((await pidsRunning(token)).length === 0) await new Promise((r) => setTimeout(r, 50));
    cancel.abort(new Error('cancelled by the test'));
    const outcome = await run;

    expect((outcome as Error).message).toBe('cancelled by the test');
    expect(await pidsRunning(token)).toEqual([]);
    expect(await pidsRunning(ground.worktree)).toEqual([]);
  });

  it('reports a crash of the engine as an engine failure with its message', async () => {
    script = () => ({ text: 'unused' });
    const broken = createClaudeCodeEngine({
      sandbox: ground.sandbox,
      binary: async () => ({ program: '/nonexistent/claude', packageDir: '/nonexistent', version: '0' }),
      target: engineTargetOf(
        'claude-code',
        { provider: 'anthropic', anthropicKey: KEY, anthropicBaseUrl: endpoint.url, runId: 'run-1' },
        { simulatorUrl: '' },
      ),
    });
    const { step } = engineStep(ground.worktree, 'Anything');
    const error = await broken.run(step).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(EngineFailedError);
    expect((error as Error).message).toContain('Claude Code failed');
  });
});
