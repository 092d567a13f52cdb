import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnthropicProvider } from './anthropic.js';
import { LlmError, type LlmProvider, type LlmRequest } from './provider.js';
import { GREETING, plannerPrompt, systemFor } from './simulator/prompt-fixtures.js';
import { type SimulatorHandle, startSimulator } from './simulator/server.js';

const KEY = 'sk-ant-api03-TESTKEY_abcdefghijklmnopqrstuvwxyz-0123456789';
let sim: SimulatorHandle;
beforeAll(async () => {
  sim = await startSimulator({ port: 0, chunkDelayMs: 0 });
});
afterAll(() => sim.close());

let runs = 0;
function provider(scenario?: string, extra: { timeoutMs?: number } = {}): LlmProvider {
  runs += 1;
  const defaultHeaders: Record<string, string> = { 'x-autocoder-run-id': `anthropic-test-${runs}` };
  if (scenario) defaultHeaders['x-simulator-scenario'] = scenario;
  return createAnthropicProvider({
    apiKey: KEY,
    baseURL: sim.url,
    simulated: true,
    defaultHeaders,
    ...extra,
  });
}

function request(overrides: Partial<LlmRequest> = {}): LlmRequest {
  return {
    agent: 'planner',
    model: 'claude-sonnet-4-20250514',
    maxTokens: 4096,
    system: systemFor('planner'),
    prompt: plannerPrompt(GREETING),
    onText: () => {},
    ...overrides,
  };
}

async function failure(promise: Promise<unknown>): Promise<LlmError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LlmError);
  return error as LlmError;
}

describe('Anthropic provider over the real SDK', () => {
  it('streams the text in several chunks that add up to the final text, with usage and stop reason', async () => {
    const chunks: string[] = [];
    const res = await provider().stream(request({ onText: (c) => chunks.push(c) }));
    expect(chunks.length).toBeGreaterThan(10);
    expect(chunks.join('')).toBe(res.text);
    expect(res.text).toContain('"subtasks"');
    expect(res.stopReason).toBe('end_turn');
    expect(res.model).toBe('claude-sonnet-4-20250514');
    const prompt = request();
    expect(res.usage.inputTokens).toBe(Math.ceil((prompt.system.length + prompt.prompt.length) / 4));
    expect(res.usage.outputTokens).toBe(Math.ceil(res.text.length / 4));
  });

  it('reports max_tokens when the answer is cut at the limit', async () => {
    const res = await provider().stream(request({ maxTokens: 20 }));
    expect(res.stopReason).toBe('max_tokens');
    expect(res.text).toHaveLength(80);
  });

  it('calls itself "simulator" only when told it talks to the simulator', () => {
    expect(provider()).toMatchObject({ id: 'simulator', simulated: true });
    expect(createAnthropicProvider({ apiKey: KEY })).toMatchObject({ id: 'anthropic', simulated: false });
  });

  it.each([
    [400, 'bad_request', false],
    [401, 'auth', false],
    [429, 'rate_limit', true],
    [500, 'server', true],
    [529, 'overloaded', true],
  ] as const)('maps HTTP %i to %s (retryable: %s)', async (status, kind, retryable) => {
    const error = await failure(provider(`error=${status}@planner`).stream(request()));
    expect(error).toMatchObject({ kind, status, retryable });
    expect(error.message).toMatch(/^Simulator: /);
  });

  it('passes on the retry-after of a 429', async () => {
    const error = await failure(provider('error=429@planner').stream(request()));
    expect(error.retryAfterMs).toBe(1000);
  });

  it.each([
    [429, 'rate_limit'],
    [500, 'server'],
    [529, 'overloaded'],
  ] as const)(
    'maps an error event in the middle of the stream (%i) to %s, after some text',
    async (status, kind) => {
      const chunks: string[] = [];
      const error = await failure(
        provider(`stream-error=${status}@planner`).stream(request({ onText: (c) => chunks.push(c) })),
      );
      expect(chunks.length).toBeGreaterThan(0);
      expect(error).toMatchObject({ kind, status, retryable: true });
    },
  );

  it('maps a connection dropped mid-stream to a retryable network error', async () => {
    const chunks: string[] = [];
    const error = await failure(provider('drop@planner').stream(request({ onText: (c) => chunks.push(c) })));
    expect(chunks.length).toBeGreaterThan(0);
    expect(error).toMatchObject({ kind: 'network', retryable: true });
  });

  it('maps a refused connection to a network error', async () => {
    const closed = await startSimulator({ port: 0 });
    await closed.close();
    const p = createAnthropicProvider({ apiKey: KEY, baseURL: closed.url });
    expect(await failure(p.stream(request()))).toMatchObject({ kind: 'network', retryable: true });
  });

  it('stops the stream in flight on abort: "aborted", and the server sees the socket close', async () => {
    const controller = new AbortController();
    const p = createAnthropicProvider({
      apiKey: KEY,
      baseURL: sim.url,
      simulated: true,
      defaultHeaders: { 'x-autocoder-run-id': 'abort-run', 'x-simulator-scenario': 'slow=50' },
    });
    const ended = new Promise((resolve) =>
      sim.events.on('stream-end', (info) => info.runKey === 'abort-run' && resolve(info.outcome)),
    );
    const error = await failure(
      p.stream(request({ signal: controller.signal, onText: () => controller.abort() })),
    );
    expect(error).toMatchObject({ kind: 'aborted', retryable: false });
    expect(await ended).toBe('client-closed');
  });

  it('does not call the API when the signal has already fired', async () => {
    const controller = new AbortController();
    controller.abort();
    expect(await failure(provider().stream(request({ signal: controller.signal })))).toMatchObject({
      kind: 'aborted',
    });
  });

  it('fails as a network error when the stream goes quiet for longer than timeoutMs', async () => {
    const error = await failure(provider('slow=10000', { timeoutMs: 200 }).stream(request()));
    expect(error).toMatchObject({ kind: 'network', retryable: true });
    expect(error.message).toMatch(/no data from the provider for 200 ms/);
  });

  it('lets an exception from onText through untouched', async () => {
    const boom = new Error('consumer failed');
    const error = await provider()
      .stream(
        request({
          onText: () => {
            throw boom;
          },
        }),
      )
      .catch((e: unknown) => e);
    expect(error).toBe(boom);
  });

  it('refuses to run without a key', async () => {
    const p = createAnthropicProvider({ apiKey: '', baseURL: sim.url });
    expect(await failure(p.stream(request()))).toMatchObject({ kind: 'auth', retryable: false });
  });
});

describe('secrets in errors', () => {
  /** A server that quotes the credentials it received, as some proxies and gateways do. */
  let echo: Server;
  let echoUrl: string;
  beforeAll(async () => {
    echo = createServer((req, res) => {
      const body = JSON.stringify({
        type: 'error',
        error: {
          type: 'authentication_error',
          // The bare value, without "Bearer": only knowing the exact key can catch an unusual one.
          message: `invalid key: ${req.headers['x-api-key'] ?? req.headers.authorization?.replace(/^Bearer /, '')}`,
        },
      });
      res.writeHead(401, { 'content-type': 'application/json' }).end(body);
    });
    echo.listen(0, '127.0.0.1');
    await once(echo, 'listening');
    echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => echo.close(resolve)));

  it('never shows the API key, even when the server quotes it back', async () => {
    const error = await failure(createAnthropicProvider({ apiKey: KEY, baseURL: echoUrl }).stream(request()));
    expect(error.kind).toBe('auth');
    expect(error.message).toContain('invalid key');
    expect(error.message).not.toContain(KEY);
    expect(error.message).not.toContain('TESTKEY');
    expect(String(error.stack)).not.toContain(KEY);
  });

  it('never shows a key that does not look like one', async () => {
    const odd = 'plain-company-gateway-credential';
    const error = await failure(createAnthropicProvider({ apiKey: odd, baseURL: echoUrl }).stream(request()));
    expect(error.message).not.toContain(odd);
  });
});
