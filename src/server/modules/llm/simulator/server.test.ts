import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coderPrompt, GREETING, plannerPrompt, systemFor } from './prompt-fixtures.js';
import { type SimulatorHandle, startSimulator } from './server.js';

let sim: SimulatorHandle;
beforeAll(async () => {
  sim = await startSimulator({ port: 0, chunkDelayMs: 0 });
});
afterAll(() => sim.close());

const messagesBody = (extra: Record<string, unknown> = {}) => ({
  model: 'claude-sonnet-4-20250514',
  max_tokens: 4096,
  system: systemFor('planner'),
  messages: [{ role: 'user', content: plannerPrompt(GREETING) }],
  ...extra,
});

function post(path: string, body: unknown, headers: Record<string, string> = { 'x-api-key': 'k' }) {
  return fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Named SSE events of a response, in order. */
async function eventNames(res: Response): Promise<string[]> {
  const text = await res.text();
  return [...text.matchAll(/^event: (\S+)$/gm)].map((m) => m[1]!);
}

describe('simulator: Anthropic Messages API', () => {
  it('accepts the key as x-api-key or as Authorization: Bearer, and answers a full message', async () => {
    const ways: Record<string, string>[] = [
      { 'x-api-key': 'anything' },
      { authorization: 'Bearer anything' },
    ];
    for (const headers of ways) {
      const res = await post('/v1/messages', messagesBody(), headers);
      expect(res.status).toBe(200);
      const message = await res.json();
      expect(message).toMatchObject({ type: 'message', role: 'assistant', stop_reason: 'end_turn' });
      expect(message.content[0].type).toBe('text');
      expect(message.usage.input_tokens).toBeGreaterThan(0);
    }
  });

  it('answers 401 authentication_error without a key', async () => {
    const res = await post('/v1/messages', messagesBody(), {});
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: expect.any(String) },
    });
  });

  it('streams the named events in the order the SDK expects', async () => {
    const res = await post('/v1/messages', messagesBody({ stream: true }));
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const names = await eventNames(res);
    const deltas = names.filter((n) => n === 'content_block_delta').length;
    expect(deltas).toBeGreaterThan(10);
    expect(names).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      ...Array(deltas).fill('content_block_delta'),
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
  });

  it('streams fixed-size deltas and pads a coder answer for load tests (chunk=, coder-bytes=)', async () => {
    const res = await post(
      '/v1/messages',
      messagesBody({
        stream: true,
        max_tokens: 64_000,
        system: systemFor('coder'),
        messages: [
          {
            role: 'user',
            content: coderPrompt(GREETING, { subtask: { index: 1, total: 1, title: 'Add it' } }),
          },
        ],
      }),
      { 'x-api-key': 'k', 'x-simulator-scenario': 'chunk=12, coder-bytes=25000' },
    );
    const text = await res.text();
    const deltas = [...text.matchAll(/^data: (.*)$/gm)]
      .map((m) => JSON.parse(m[1]!) as { delta?: { type?: string; text?: string } })
      .flatMap((event) => (event.delta?.type === 'text_delta' ? [event.delta.text ?? ''] : []));
    const answer = deltas.join('');
    expect(deltas.slice(0, -1).every((delta) => Array.from(delta).length === 12)).toBe(true);
    expect(answer.length).toBeGreaterThanOrEqual(25_000);
    expect(answer.length).toBeLessThan(27_000);
    expect(answer).toMatch(/```json\n[\s\S]*"files"[\s\S]*```\n$/);
  });

  it('answers scripted errors with the status, error type and retry-after', async () => {
    const cases = [
      [400, 'invalid_request_error'],
      [401, 'authentication_error'],
      [429, 'rate_limit_error'],
      [500, 'api_error'],
      [529, 'overloaded_error'],
    ] as const;
    for (const [status, type] of cases) {
      const res = await post('/v1/messages', messagesBody({ stream: true }), {
        'x-api-key': 'k',
        'x-simulator-scenario': `error=${status}@planner`,
        'x-autocoder-run-id': `errors-${status}`,
      });
      expect(res.status).toBe(status);
      expect((await res.json()).error.type).toBe(type);
      expect(res.headers.get('retry-after')).toBe(status === 429 ? '1' : null);
    }
  });

  it('sends an error event mid-stream for stream-error', async () => {
    const res = await post('/v1/messages', messagesBody({ stream: true }), {
      'x-api-key': 'k',
      'x-simulator-scenario': 'stream-error=529@planner',
      'x-autocoder-run-id': 'mid-stream',
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(
      /event: content_block_delta[\s\S]*event: error\ndata: \{"type":"error","error":\{"type":"overloaded_error"/,
    );
    expect(text).not.toContain('message_stop');
  });

  it('rejects bad requests with 400 and unknown routes with 404', async () => {
    expect((await post('/v1/messages', '{not json')).status).toBe(400);
    expect((await post('/v1/messages', messagesBody({ max_tokens: undefined }))).status).toBe(400);
    expect((await post('/v1/messages', messagesBody({ messages: [] }))).status).toBe(400);
    const missing = await post('/v1/complete', messagesBody());
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.type).toBe('not_found_error');
  });

  it('counts a directive per run id, falling back to one global count', async () => {
    const call = (runId?: string) =>
      post('/v1/messages', messagesBody(), {
        'x-api-key': 'k',
        'x-simulator-scenario': 'error=429@planner x2',
        ...(runId ? { 'x-autocoder-run-id': runId } : {}),
      }).then((r) => r.status);
    expect([await call('count-a'), await call('count-a'), await call('count-a')]).toEqual([429, 429, 200]);
    expect(await call('count-b')).toBe(429);
    expect([await call(), await call(), await call()]).toEqual([429, 429, 200]);
  });

  it('reads the scenario from a [simulate: …] marker when no header is sent', async () => {
    const body = messagesBody({
      messages: [{ role: 'user', content: `${plannerPrompt(GREETING)}\n[simulate: error=500@planner]` }],
    });
    const res = await post('/v1/messages', body, { 'x-api-key': 'k', 'x-autocoder-run-id': 'marker' });
    expect(res.status).toBe(500);
  });
});

describe('simulator: OpenAI chat.completions', () => {
  const chatBody = (extra: Record<string, unknown> = {}) => ({
    model: 'local-model',
    messages: [
      { role: 'system', content: systemFor('coder') },
      { role: 'user', content: coderPrompt(GREETING, { subtask: { index: 1, total: 1, title: 'x' } }) },
    ],
    stream: true,
    ...extra,
  });

  async function chunks(res: Response): Promise<string[]> {
    return [...(await res.text()).matchAll(/^data: (.*)$/gm)].map((m) => m[1]!);
  }

  it('streams role first, content deltas, finish_reason, a usage chunk when asked, then [DONE]', async () => {
    const data = await chunks(
      await post('/v1/chat/completions', chatBody({ stream_options: { include_usage: true } })),
    );
    expect(data.at(-1)).toBe('[DONE]');
    const parsed = data.slice(0, -1).map((d) => JSON.parse(d));
    expect(parsed[0].choices[0].delta.role).toBe('assistant');
    const usage = parsed.at(-1);
    expect(usage.choices).toEqual([]);
    expect(usage.usage.completion_tokens).toBeGreaterThan(0);
    expect(parsed.at(-2).choices[0].finish_reason).toBe('stop');
    const text = parsed.map((p) => p.choices[0]?.delta?.content ?? '').join('');
    expect(text).toContain('"files"');
  });

  it('sends no usage chunk unless include_usage is set', async () => {
    const data = await chunks(await post('/v1/chat/completions', chatBody(), { authorization: 'Bearer x' }));
    const parsed = data.slice(0, -1).map((d) => JSON.parse(d));
    expect(parsed.some((p) => p.usage)).toBe(false);
  });

  it('answers non-streaming requests with a chat.completion', async () => {
    const res = await post('/v1/chat/completions', chatBody({ stream: false }));
    const body = await res.json();
    expect(body.object).toBe('chat.completion');
    expect(body.choices[0].message.content).toContain('"files"');
  });
});
