// Tool-using requests the real APIs refuse get their 400; nothing a client sends makes the simulator fail.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  anthropicTools,
  openAiTools,
  toolDeclarations,
} from '@/server/modules/agent-tools/tool-declarations.js';
import { coderPrompt, GREETING, systemFor } from './prompt-fixtures.js';
import { type SimulatorHandle, startSimulator } from './server.js';

let sim: SimulatorHandle;
beforeAll(async () => {
  sim = await startSimulator({ port: 0, chunkDelayMs: 0 });
});
afterAll(() => sim.close());

let runs = 0;
function post(path: string, body: unknown) {
  return fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': 'k',
      'x-autocoder-run-id': `tool-requests-${++runs}`,
    },
    body: JSON.stringify(body),
  });
}

const TOOLS = anthropicTools(toolDeclarations());
const CODER = coderPrompt(GREETING, { subtask: { index: 1, total: 3, title: 'Create it' } });

describe('requests the real APIs refuse get their 400', () => {
  const anthropic = (extra: Record<string, unknown>) => ({
    model: 'm',
    max_tokens: 100,
    system: systemFor('coder'),
    tools: TOOLS,
    messages: [{ role: 'user', content: CODER }],
    ...extra,
  });
  const use = { type: 'tool_use', id: 'toolu_1', name: 'list_files', input: {} };
  const result = { type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.ts' };
  const anthropicCases: Array<[Record<string, unknown>, RegExp]> = [
    [{ tools: 'all' }, /^tools: Input should be a valid list/],
    [{ tools: [{ name: 'a' }] }, /input_schema: Field required/],
    [{ tools: [{ name: 'a b', input_schema: { type: 'object' } }] }, /String should match pattern/],
    [{ tools: [TOOLS[0], TOOLS[0]] }, /Tool names must be unique/],
    [{ tool_choice: { type: 'sometimes' } }, /tool_choice/],
    [{ messages: [{ role: 'user', content: [result] }] }, /unexpected `tool_use_id`/],
    [
      {
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: [use] },
        ],
      },
      /without `tool_result`/,
    ],
    [
      {
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: [use] },
          { role: 'user', content: 'no results' },
        ],
      },
      /without `tool_result`/,
    ],
    [{ messages: [{ role: 'user', content: [use] }] }, /only appear in assistant messages/],
    [
      {
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: [{ ...use, input: 'x' }] },
        ],
      },
      /input/,
    ],
    [
      {
        tools: undefined,
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: [use] },
        ],
      },
      /must define tools/,
    ],
  ];
  it('Anthropic', async () => {
    for (const [extra, message] of anthropicCases) {
      const res = await post('/v1/messages', anthropic(extra));
      expect(res.status, JSON.stringify(extra)).toBe(400);
      const error = (await res.json()).error;
      expect(error.type).toBe('invalid_request_error');
      expect(error.message).toMatch(message);
    }
  });

  const chat = (extra: Record<string, unknown>) => ({
    model: 'm',
    messages: [
      { role: 'system', content: systemFor('coder') },
      { role: 'user', content: CODER },
    ],
    tools: openAiTools(toolDeclarations()),
    ...extra,
  });
  const call = { id: 'call_1', type: 'function', function: { name: 'list_files', arguments: '{}' } };
  const openAiCases: Array<[Record<string, unknown>, RegExp]> = [
    [{ tools: [{ type: 'function' }] }, /Missing required parameter: 'tools\[0\]\.function'/],
    [
      { tools: [{ type: 'function', function: { name: 3 } }] },
      /Invalid type for 'tools\[0\]\.function\.name'/,
    ],
    [{ tools: undefined, tool_choice: 'auto' }, /only allowed when 'tools' are specified/],
    [
      {
        messages: [
          { role: 'user', content: 'x' },
          { role: 'tool', tool_call_id: 'call_1', content: 'a' },
        ],
      },
      /must be a response/,
    ],
    [
      {
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: null, tool_calls: [call] },
          { role: 'user', content: 'y' },
        ],
      },
      /did not have response messages: call_1/,
    ],
    [
      {
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', tool_calls: [{ ...call, function: { name: 'a' } }] },
        ],
      },
      /Missing required parameter: 'messages\[1\]\.tool_calls\[0\]\.function\.arguments'/,
    ],
    [{ messages: [{ role: 'robot', content: 'x' }] }, /Supported values are/],
  ];
  it('OpenAI', async () => {
    for (const [extra, message] of openAiCases) {
      const res = await post('/v1/chat/completions', chat(extra));
      expect(res.status, JSON.stringify(extra)).toBe(400);
      expect((await res.json()).error.message).toMatch(message);
    }
  });

  it('never fails otherwise: mutated conversations get a 200 or a 400, and the server stays up', async () => {
    let seed = 24;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const junk = () =>
      [null, 42, 'x', [], {}, [{}], { type: 'tool_use' }, true, -1][Math.floor(random() * 9)];
    const mutate = (value: unknown, depth = 0): unknown => {
      if (random() < 0.08) return junk();
      if (Array.isArray(value)) return value.map((v) => mutate(v, depth + 1));
      if (value && typeof value === 'object' && depth < 6)
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mutate(v, depth + 1)]));
      return value;
    };
    const conversation = [
      { role: 'user', content: [{ type: 'text', text: CODER, cache_control: { type: 'ephemeral' } }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Looking.' }, use] },
      {
        role: 'user',
        content: [
          { ...result, is_error: true },
          { type: 'text', text: 'go on' },
        ],
      },
    ];
    const statuses = new Set<number>();
    for (let i = 0; i < 150; i++) {
      const a = await post(
        '/v1/messages',
        mutate(anthropic({ messages: conversation, stream: i % 2 === 0 })),
      );
      await a.text();
      statuses.add(a.status);
      const o = await post(
        '/v1/chat/completions',
        mutate(
          chat({
            messages: [
              { role: 'user', content: 'x' },
              { role: 'assistant', content: null, tool_calls: [call] },
              { role: 'tool', tool_call_id: 'call_1', content: 'Error: no' },
            ],
          }),
        ),
      );
      await o.text();
      statuses.add(o.status);
    }
    expect([...statuses].sort()).toEqual([200, 400]);
    expect((await post('/v1/messages', anthropic({}))).status).toBe(200);
  });
});
