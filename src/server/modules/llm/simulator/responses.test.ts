// The Responses API as the simulator speaks it to Codex: its SSE framing and how a request is read.
import { describe, expect, it } from 'vitest';
import { ENGINE_ROLE_LINE, engineMarked } from './engine-prompts.js';
import type { Completion } from './protocols.js';
import { responsesProtocol } from './responses-protocol.js';
import { parseResponsesRequest } from './responses-request.js';

/** The events of an SSE body, in order: `event:` name and `data:` JSON. */
function events(body: string): Array<{ event: string; data: Record<string, unknown> }> {
  return body
    .split('\n\n')
    .filter((frame) => frame.trim())
    .map((frame) => {
      const event = /^event: (.*)$/m.exec(frame)?.[1] ?? '';
      const data = JSON.parse(/^data: (.*)$/m.exec(frame)?.[1] ?? '{}') as Record<string, unknown>;
      return { event, data };
    });
}

const step = 'Task title: Add greeting helper\nTask category: feature\nTask description:\nGreet.';

describe('the Responses protocol', () => {
  const base: Completion = {
    id: 'resp_sim_1',
    model: 'm',
    text: '',
    stop: 'end',
    inputTokens: 10,
    outputTokens: 4,
  };

  it('streams a message: created, text deltas, the item done, completed with output and usage', () => {
    const p = responsesProtocol();
    const c = { ...base, text: 'Hello there', cache: { readTokens: 6, writeTokens: 0 } };
    const all = events([...p.start(c), p.delta(c, 'Hello'), p.delta(c, ' there'), ...p.finish(c)].join(''));
    expect(all.map((e) => e.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    for (const [i, e] of all.entries()) expect(e.data).toMatchObject({ type: e.event, sequence_number: i });
    expect(all[4]!.data).toMatchObject({
      item_id: 'msg_resp_sim_1',
      output_index: 0,
      content_index: 0,
      delta: 'Hello',
    });
    const item = {
      type: 'message',
      id: 'msg_resp_sim_1',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'Hello there', annotations: [] }],
    };
    expect(all[8]!.data.item).toEqual(item);
    expect(all[9]!.data.response).toMatchObject({
      id: 'resp_sim_1',
      status: 'completed',
      output: [item],
      usage: {
        input_tokens: 10,
        input_tokens_details: { cached_tokens: 6 },
        output_tokens: 4,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 14,
      },
    });
  });

  it('streams function calls after the text, their arguments in pieces', () => {
    const p = responsesProtocol();
    const call = { id: 'call_sim1', name: 'exec_command', arguments: '{"cmd":"ls"}' };
    const c: Completion = { ...base, text: 'Looking.', stop: 'tool_use', toolCalls: [call] };
    const all = events(
      [...p.start(c), p.delta(c, 'Looking.'), ...p.toolCalls(c, [['{"cmd":', '"ls"}']]), ...p.finish(c)].join(
        '',
      ),
    );
    expect(all.map((e) => e.event).slice(5)).toEqual([
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const done = {
      type: 'function_call',
      id: 'fc_call_sim1',
      call_id: 'call_sim1',
      name: 'exec_command',
      arguments: '{"cmd":"ls"}',
      status: 'completed',
    };
    expect(all[12]!.data).toMatchObject({ output_index: 1, item: done });
    expect((all[13]!.data.response as { output: unknown[] }).output).toEqual([
      expect.objectContaining({ type: 'message' }),
      done,
    ]);
  });

  it('ends at max_output_tokens as incomplete, and reports a mid-stream error as response.failed', () => {
    const p = responsesProtocol();
    const c: Completion = { ...base, text: 'cut', stop: 'max_tokens' };
    const all = events([...p.start(c), ...p.finish(c)].join(''));
    expect(all.at(-1)).toMatchObject({
      event: 'response.incomplete',
      data: { response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } } },
    });
    const failed = events(p.error(429, 'slow down'))[0]!;
    expect(failed).toMatchObject({
      event: 'response.failed',
      data: {
        response: {
          id: 'resp_sim_1',
          status: 'failed',
          error: { code: 'rate_limit_exceeded', message: 'slow down' },
        },
      },
    });
  });
});

describe('a Responses request', () => {
  it('is read as Codex sends it: developer text as system, the marked prompt, turns with their outputs', () => {
    const marked = `${ENGINE_ROLE_LINE('codex')}\n\n${step}`;
    const sim = parseResponsesRequest(
      {
        model: 'gpt-5-codex',
        stream: true,
        input: [
          { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'You are Codex.' }] },
          {
            type: 'message',
            role: 'user',
            content: [{ type: 'input_text', text: '<environment_context/>' }],
          },
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: marked }] },
          { type: 'reasoning', summary: [] },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Looking.' }] },
          { type: 'function_call', name: 'exec_command', arguments: '{"cmd":"ls"}', call_id: 'c1' },
          { type: 'function_call_output', call_id: 'c1', output: 'Process exited with code 0\nOutput:\na\n' },
        ],
        tools: [
          { type: 'function', name: 'exec_command', parameters: { type: 'object' } },
          { type: 'namespace', name: 'ns', tools: [{ type: 'function', name: 'spawn_agent' }] },
          { type: 'web_search' },
        ],
        tool_choice: 'auto',
      },
      (text) => engineMarked(text) !== undefined,
    );
    expect(sim.system).toBe('You are Codex.');
    expect(sim.prompt).toBe(marked);
    expect(sim.stream).toBe(true);
    expect(sim.tools?.tools).toEqual(['exec_command', 'spawn_agent']);
    expect(sim.tools?.turns).toEqual([
      {
        text: 'Looking.',
        calls: [
          {
            id: 'c1',
            name: 'exec_command',
            input: { cmd: 'ls' },
            arguments: '{"cmd":"ls"}',
            result: { ok: true, content: 'Process exited with code 0\nOutput:\na\n' },
          },
        ],
      },
    ]);
  });
});
