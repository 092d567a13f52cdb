import { readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAnthropicProvider } from '../llm/anthropic.js';
import { createOpenAiProvider } from '../llm/openai-compatible.js';
import type { LlmProvider } from '../llm/provider.js';
import {
  type AgentLoopParams,
  AgentStuckError,
  MAX_BAD_CALLS_IN_ROW,
  runAgentLoop,
  shownInput,
} from './agent-loop.js';
import { createAutocoderEngine } from './autocoder-engine.js';
import type { CoderStep } from './coder-engine.js';
import { makeWorktree, type TestWorktree } from './test-worktree.js';
import {
  type ScriptedEndpoint,
  type ScriptedTurn,
  startScriptedEndpoint,
} from './testing/scripted-endpoint.js';
import { READ_ONLY_TOOLS, toolDeclarations } from './tool-declarations.js';
import { createToolExecutor } from './tool-executor.js';

/**
 * The agent loop against stand-in endpoints that speak each provider's streaming tool-use protocol,
 * through the real SDKs: what a scripted model asks for is what happens in the worktree.
 */
const PROTOCOLS = ['anthropic', 'openai'] as const;
type Protocol = (typeof PROTOCOLS)[number];

let t: TestWorktree;
let endpoint: ScriptedEndpoint | undefined;
beforeEach(async () => {
  t = await makeWorktree();
});
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
  await t.cleanup();
});

async function providerFor(
  protocol: Protocol,
  turns: ((r: { results: { content: string; isError: boolean }[] }) => ScriptedTurn)[],
) {
  endpoint = await startScriptedEndpoint((request) => {
    const turn = turns[Math.min(request.turn, turns.length - 1)];
    if (!turn) throw new Error('no turn scripted');
    return turn(request);
  });
  const provider: LlmProvider =
    protocol === 'anthropic'
      ? createAnthropicProvider({ apiKey: 'test-key', baseURL: endpoint.url })
      : createOpenAiProvider({ baseURL: `${endpoint.url}/v1` });
  return provider;
}

function coderStep(provider: LlmProvider, overrides: Partial<CoderStep> = {}): CoderStep & { log: string[] } {
  const log: string[] = [];
  return {
    log,
    runId: 'run-1',
    worktree: t.worktree,
    prompt: 'Change the answer.',
    title: 'Change the answer',
    provider,
    model: 'scripted-model',
    maxTokens: 1000,
    maxToolCalls: 60,
    signal: new AbortController().signal,
    beforeWrite: async () => {},
    events: {
      onText: () => {},
      onToolCall: ({ tool }) => {
        log.push(`call ${tool}`);
      },
      onToolResult: ({ result }) => {
        log.push(`${result.ok ? 'ok' : 'error'} ${result.summary}`);
      },
    },
    ...overrides,
  };
}

/** A 250 KB TypeScript file with one line to change in the middle. */
function bigFile(): string {
  const lines: string[] = [];
  for (let i = 0; i < 6000; i++)
    lines.push(`export const value${i} = ${i}; // line ${i} of a generated module, padded to size`);
  lines[3000] = 'export function answer() { return 41; }';
  return `${lines.join('\n')}\n`;
}

describe.each(PROTOCOLS)('the agent loop over %s', (protocol) => {
  it('changes one line of a 250 KB file and leaves every other byte as it was', async () => {
    const before = bigFile();
    expect(Buffer.byteLength(before)).toBeGreaterThan(250_000);
    await t.commit({ 'src/big.ts': before });
    const provider = await providerFor(protocol, [
      () => ({
        text: 'Looking for it.',
        calls: [{ name: 'search', input: { pattern: 'function answer', fixed: true } }],
      }),
      ({ results }) => {
        expect(results[0]?.content).toContain('src/big.ts:3001:');
        return {
          calls: [{ name: 'read_file', input: { path: 'src/big.ts', startLine: 2999, endLine: 3003 } }],
        };
      },
      () => ({
        calls: [
          {
            name: 'edit_file',
            input: { path: 'src/big.ts', oldText: 'return 41;', newText: 'return 42;' },
          },
        ],
      }),
      () => ({ calls: [{ name: 'finish', input: { summary: 'The answer is 42 now.' } }] }),
    ]);
    const step = coderStep(provider);
    const result = await createAutocoderEngine().run(step);

    const after = (await t.read('src/big.ts')).toString('utf8');
    expect(after).toBe(before.replace('return 41;', 'return 42;'));
    expect(result.summary).toBe('The answer is 42 now.');
    expect(result.toolCalls).toBe(4);
    expect(result.turns).toBe(4);
    expect(step.log).toContain('ok Edited src/big.ts +1 −1');
    // The stand-in reports cached input tokens on every turn; they are counted within the input.
    expect(result.usage.cacheReadTokens).toBe(4 * 40);
    expect(result.usage.inputTokens).toBe(protocol === 'anthropic' ? 4 * 150 : 4 * 100);
    if (protocol === 'anthropic') {
      // The system prompt, the tools and the conversation so far are marked for the prompt cache.
      const body = endpoint!.requests[2]!.body as {
        system: { cache_control?: unknown }[];
        tools: { cache_control?: unknown }[];
        messages: { content: { cache_control?: unknown }[] }[];
      };
      expect(body.system[0]?.cache_control).toEqual({ type: 'ephemeral' });
      expect(body.tools.at(-1)?.cache_control).toEqual({ type: 'ephemeral' });
      expect(body.messages.at(-1)?.content.at(-1)?.cache_control).toEqual({ type: 'ephemeral' });
    }
  });

  it('answers a path outside, a link out and a .git path with tool errors, and touches nothing', async () => {
    await writeFile(path.join(t.outside, 'secret.txt'), 'secret\n');
    await symlink(t.outside, path.join(t.worktree, 'out'));
    const gitFile = await readFile(path.join(t.worktree, '.git'));
    const provider = await providerFor(protocol, [
      () => ({
        calls: [
          { name: 'read_file', input: { path: '../outside/secret.txt' } },
          { name: 'write_file', input: { path: 'out/secret.txt', content: 'changed' } },
          { name: 'edit_file', input: { path: '.git', oldText: 'gitdir', newText: 'nope' } },
          { name: 'write_file', input: { path: `${t.outside}/new.txt`, content: 'x' } },
        ],
      }),
      () => ({ calls: [{ name: 'finish', input: { summary: 'nothing' } }] }),
    ]);
    const step = coderStep(provider, {
      beforeWrite: async () => expect.fail('a refused path is never locked'),
    });
    await createAutocoderEngine().run(step);

    expect(step.log.filter((line) => line.startsWith('error'))).toHaveLength(4);
    expect(await readFile(path.join(t.outside, 'secret.txt'), 'utf8')).toBe('secret\n');
    expect(await readFile(path.join(t.worktree, '.git'))).toEqual(gitFile);
    await expect(readFile(path.join(t.outside, 'new.txt'))).rejects.toThrow();
    // The model was told why, call by call.
    const told = endpoint!.requests[1]!.results;
    expect(told).toHaveLength(4);
    expect(told.every((r) => r.isError)).toBe(true);
  });

  it(`stops with agent_stuck after ${MAX_BAD_CALLS_IN_ROW} bad calls in a row`, async () => {
    const provider = await providerFor(protocol, [
      () => ({ calls: [{ name: 'read_files', input: { path: 'README.md' } }] }),
      () => ({ calls: [{ name: 'read_file', input: '{"path": ' }] }),
      () => ({
        calls: [{ name: 'edit_file', input: { path: 'README.md', oldText: 'absent', newText: 'x' } }],
      }),
      () => ({ calls: [{ name: 'read_file', input: { file: 'README.md' } }] }),
      () => ({ calls: [{ name: 'read_file', input: { path: '/etc/passwd' } }] }),
      () => ({ calls: [{ name: 'finish', input: { summary: 'never reached' } }] }),
    ]);
    const step = coderStep(provider);
    const error = await createAutocoderEngine()
      .run(step)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentStuckError);
    expect((error as Error).message).toMatch(/5 bad tool calls in a row/);
    expect(endpoint!.requests).toHaveLength(5);
  });

  it('stops with agent_stuck when the step spends its tool calls without finishing', async () => {
    const provider = await providerFor(protocol, [() => ({ calls: [{ name: 'list_files', input: {} }] })]);
    const step = coderStep(provider, { maxToolCalls: 3 });
    const error = await createAutocoderEngine()
      .run(step)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentStuckError);
    expect((error as Error).message).toMatch(/3 tool calls/);
    expect(endpoint!.requests).toHaveLength(3);
  });

  it('does not write a file until its lock is given', async () => {
    await t.commit({ 'src/a.ts': 'one\n' });
    let release!: () => void;
    const lock = new Promise<void>((resolve) => {
      release = resolve;
    });
    let asked!: () => void;
    const lockAsked = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const provider = await providerFor(protocol, [
      () => ({ calls: [{ name: 'edit_file', input: { path: 'src/a.ts', oldText: 'one', newText: 'two' } }] }),
      () => ({ calls: [{ name: 'finish', input: { summary: 'done' } }] }),
    ]);
    const step = coderStep(provider, {
      beforeWrite: async (file) => {
        expect(file).toBe('src/a.ts');
        asked();
        await lock;
      },
    });
    const running = createAutocoderEngine().run(step);
    await lockAsked;
    expect((await t.read('src/a.ts')).toString()).toBe('one\n');
    release();
    await running;
    expect((await t.read('src/a.ts')).toString()).toBe('two\n');
  });

  it("stops a turn whose tool input grows past the turn's cap, as it does for prose", async () => {
    const provider = await providerFor(protocol, [
      () => ({ calls: [{ name: 'write_file', input: { path: 'big.txt', content: 'x'.repeat(5000) } }] }),
    ]);
    const step = coderStep(provider, {
      maxTurnBytes: 1000,
      onTurnTooLarge: () => new Error('the turn is too large'),
    });
    const error = await createAutocoderEngine()
      .run(step)
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe('the turn is too large');
    await expect(t.read('big.txt')).rejects.toThrow();
  });

  it('says what to do when the endpoint refuses the tools (a model without tool use)', async () => {
    const provider = await providerFor(protocol, [
      () => ({ refuse: { status: 400, message: 'this model does not support tools' } }),
    ]);
    const error = await createAutocoderEngine()
      .run(coderStep(provider))
      .catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/set the project's coder engine to "one-shot"/);
  });

  it('lets an answer agent read, then answer; a turn without calls ends the loop', async () => {
    await t.commit({ 'src/a.ts': 'export const a = 1;\n' });
    const provider = await providerFor(protocol, [
      () => ({ calls: [{ name: 'read_file', input: { path: 'src/a.ts' } }] }),
      ({ results }) => {
        expect(results[0]?.content).toContain('export const a = 1;');
        return { text: '{"passed": true}' };
      },
    ]);
    const answers: string[] = [];
    const params: AgentLoopParams = {
      provider,
      agent: 'reviewer',
      model: 'scripted-model',
      maxTokens: 1000,
      system: 'review',
      prompt: 'Review.',
      tools: toolDeclarations(READ_ONLY_TOOLS),
      executor: createToolExecutor({ worktree: t.worktree }),
      maxToolCalls: 10,
      onText: () => {},
      onToolCall: () => {},
      onToolResult: () => {},
      onAnswer: (text) => {
        answers.push(text);
        return { done: true };
      },
    };
    const result = await runAgentLoop(params);
    expect(result.finalText).toBe('{"passed": true}');
    expect(answers).toEqual(['{"passed": true}']);
    // The read-only agent was never offered a tool that writes.
    const offered = JSON.stringify(endpoint!.requests[0]!.body.tools);
    expect(offered).not.toContain('edit_file');
    expect(offered).not.toContain('write_file');
  });
});

describe('shownInput', () => {
  it('cuts long strings, and shows an input of many keys as the start of its JSON', () => {
    expect(shownInput({ path: 'a.ts', content: 'y'.repeat(2500) })).toEqual({
      path: 'a.ts',
      content: `${'y'.repeat(2000)}… (500 more characters)`,
    });
    const many = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`k${i}`, i]));
    const shown = shownInput(many);
    expect(Object.keys(shown)).toEqual(['arguments']);
    expect(String(shown.arguments).length).toBeLessThan(8100);
  });
});
