// Tool use on the wire: what the real SDKs (and AutoCoder's providers) receive from the simulator.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  anthropicTools,
  openAiTools,
  READ_ONLY_TOOLS,
  toolDeclarations,
} from '@/server/modules/agent-tools/tool-declarations.js';
import { createAnthropicProvider } from '../anthropic.js';
import { createOpenAiProvider } from '../openai-compatible.js';
import type { TurnMessage } from '../provider.js';
import { coderPrompt, GREETING, systemFor } from './prompt-fixtures.js';
import { type SimulatorHandle, startSimulator } from './server.js';

let sim: SimulatorHandle;
beforeAll(async () => {
  sim = await startSimulator({ port: 0, chunkDelayMs: 0 });
});
afterAll(() => sim.close());

const PROMPT = coderPrompt(GREETING, { subtask: { index: 1, total: 3, title: 'Create it' } });
let runs = 0;
const runId = () => `tool-wire-${++runs}`;

describe('Anthropic tool use through the SDK', () => {
  it('streams a text block, then tool_use blocks whose input arrives in pieces and parses', async () => {
    const client = new Anthropic({ apiKey: 'k', baseURL: sim.url, maxRetries: 0 });
    const stream = client.messages.stream(
      {
        model: 'claude-sim',
        max_tokens: 4096,
        system: systemFor('coder'),
        tools: anthropicTools(toolDeclarations()),
        messages: [{ role: 'user', content: PROMPT }],
      },
      { headers: { 'x-autocoder-run-id': runId() } },
    );
    const events: string[] = [];
    let pieces = 0;
    for await (const event of stream) {
      events.push(event.type === 'content_block_start' ? `start:${event.content_block.type}` : event.type);
      if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta') pieces++;
    }
    const message = await stream.finalMessage();
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content[0]).toMatchObject({
      type: 'text',
      text: expect.stringContaining('Simulated coder'),
    });
    expect(message.content.slice(1)).toEqual([
      { type: 'tool_use', id: expect.stringMatching(/^toolu_/), name: 'list_files', input: { path: 'src' } },
    ]);
    expect(pieces).toBeGreaterThanOrEqual(2);
    expect(events.filter((e) => e !== 'content_block_delta')).toEqual([
      'message_start',
      'start:text',
      'content_block_stop',
      'start:tool_use',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(message.usage).toMatchObject({ cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
  });

  it('answers a non-streamed request with the same blocks', async () => {
    const client = new Anthropic({ apiKey: 'k', baseURL: sim.url, maxRetries: 0 });
    const message = await client.messages.create({
      model: 'claude-sim',
      max_tokens: 4096,
      system: systemFor('coder'),
      tools: anthropicTools(toolDeclarations()),
      messages: [{ role: 'user', content: PROMPT }],
    });
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content.map((b) => b.type)).toEqual(['text', 'tool_use']);
  });

  it('reports the marked prefix as cache_creation first, as cache_read on the next request of the run', async () => {
    const client = new Anthropic({ apiKey: 'k', baseURL: sim.url, maxRetries: 0 });
    const ask = (id: string) =>
      client.messages.create(
        {
          model: 'claude-sim',
          max_tokens: 4096,
          system: [{ type: 'text', text: systemFor('planner'), cache_control: { type: 'ephemeral' } }],
          tools: anthropicTools(toolDeclarations(READ_ONLY_TOOLS)),
          messages: [{ role: 'user', content: [{ type: 'text', text: 'Task title: X' }] }],
        },
        { headers: { 'x-autocoder-run-id': id } },
      );
    const id = runId();
    const first = (await ask(id)).usage;
    const second = (await ask(id)).usage;
    const other = (await ask(runId())).usage;
    expect(first.cache_creation_input_tokens).toBeGreaterThan(400);
    expect(first.cache_read_input_tokens).toBe(0);
    expect(second).toMatchObject({
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: first.cache_creation_input_tokens,
      input_tokens: first.input_tokens,
    });
    expect(other.cache_creation_input_tokens).toBe(first.cache_creation_input_tokens);
  });
});

describe('OpenAI tool use through the SDK', () => {
  const client = () => new OpenAI({ apiKey: 'k', baseURL: `${sim.url}/v1`, maxRetries: 0 });
  const body = {
    model: 'local',
    messages: [
      { role: 'system' as const, content: systemFor('coder') },
      { role: 'user' as const, content: PROMPT },
    ],
    tools: openAiTools(toolDeclarations()),
  };

  it('streams tool_calls: id and name first, the arguments in pieces, finish_reason tool_calls', async () => {
    const chunks = await client().chat.completions.create(
      { ...body, stream: true, stream_options: { include_usage: true } },
      { headers: { 'x-autocoder-run-id': runId() } },
    );
    const parts: OpenAI.Chat.ChatCompletionChunk.Choice.Delta.ToolCall[] = [];
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of chunks) {
      parts.push(...(chunk.choices[0]?.delta.tool_calls ?? []));
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    expect(parts[0]).toEqual({
      index: 0,
      id: expect.stringMatching(/^call_/),
      type: 'function',
      function: { name: 'list_files', arguments: '' },
    });
    expect(parts.length).toBeGreaterThanOrEqual(3);
    expect(parts.slice(1).every((p) => p.id === undefined && p.function?.name === undefined)).toBe(true);
    expect(JSON.parse(parts.map((p) => p.function?.arguments ?? '').join(''))).toEqual({ path: 'src' });
    expect(finish).toBe('tool_calls');
    expect(usage?.prompt_tokens_details).toEqual({ cached_tokens: 0 });
  });

  it('answers a non-streamed request with message.tool_calls', async () => {
    const completion = await client().chat.completions.create(body);
    const message = completion.choices[0]!.message;
    expect(completion.choices[0]!.finish_reason).toBe('tool_calls');
    expect(message.tool_calls).toHaveLength(1);
    const call = message.tool_calls![0]!;
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ path: 'src' });
  });
});

describe("AutoCoder's providers' turn() against the simulator", () => {
  const tools = toolDeclarations();
  const turnOf = (
    provider: ReturnType<typeof createAnthropicProvider>,
    id: string,
    messages: TurnMessage[],
  ) =>
    provider.turn({
      agent: 'coder',
      model: 'm',
      maxTokens: 8192,
      system: systemFor('coder'),
      tools,
      messages,
      cache: true,
      runId: id,
      onText: () => {},
    });

  for (const [label, make] of [
    ['anthropic', () => createAnthropicProvider({ apiKey: 'k', baseURL: sim.url, simulated: true })],
    ['openai', () => createOpenAiProvider({ baseURL: `${sim.url}/v1` })],
  ] as const) {
    it(`${label}: parses the calls, and the second turn of a run reads the first one's prefix from the cache`, async () => {
      const provider = make();
      const id = runId();
      const messages: TurnMessage[] = [{ role: 'user', text: PROMPT }];
      // The OpenAI provider sends no run id (its requests count against the simulator's global run).
      const first = await turnOf(provider, id, messages);
      expect(first.stopReason).toBe(label === 'openai' ? 'tool_calls' : 'tool_use');
      expect(first.toolCalls).toEqual([
        { id: expect.any(String), name: 'list_files', arguments: '{"path":"src"}' },
      ]);
      messages.push(
        { role: 'assistant', text: first.text, toolCalls: first.toolCalls },
        { role: 'tool', results: [{ callId: first.toolCalls[0]!.id, ok: true, content: 'src/a.ts' }] },
      );
      const second = await turnOf(provider, id, messages);
      expect(second.toolCalls.map((c) => c.name)).toEqual(['search']);
      expect(second.usage.cacheReadTokens).toBeGreaterThan(0);
      if (label === 'anthropic') {
        expect(first.usage.cacheWriteTokens).toBeGreaterThan(0);
        expect(second.usage.cacheReadTokens).toBe(first.usage.cacheWriteTokens);
      }
    });
  }
});
