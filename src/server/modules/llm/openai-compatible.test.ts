import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAiProvider } from './openai-compatible.js';
import { LlmError, type LlmRequest } from './provider.js';
import { coderPrompt, GREETING, jsonOf, systemFor } from './simulator/prompt-fixtures.js';
import { type SimulatorHandle, startSimulator } from './simulator/server.js';

let sim: SimulatorHandle;
beforeAll(async () => {
  sim = await startSimulator({ port: 0, chunkDelayMs: 0 });
});
afterAll(() => sim.close());

/** The simulator reads the scenario from the prompt here: the OpenAI provider sends no simulator headers. */
function request(scenario = '', overrides: Partial<LlmRequest> = {}): LlmRequest {
  const marker = scenario ? `\n[simulate: ${scenario}]` : '';
  return {
    agent: 'coder',
    model: 'llama3.1:8b',
    maxTokens: 8192,
    system: systemFor('coder'),
    prompt: coderPrompt(GREETING, { subtask: { index: 1, total: 2, title: 'Create' } }) + marker,
    onText: () => {},
    ...overrides,
  };
}

const provider = (apiKey?: string) =>
  createOpenAiProvider({ baseURL: `${sim.url}/v1`, ...(apiKey !== undefined ? { apiKey } : {}) });

async function failure(promise: Promise<unknown>): Promise<LlmError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LlmError);
  return error as LlmError;
}

describe('OpenAI-compatible provider over the real SDK', () => {
  it('streams chat.completions in several chunks, with usage and finish reason', async () => {
    const chunks: string[] = [];
    const res = await provider().stream(request('', { onText: (c) => chunks.push(c) }));
    expect(chunks.length).toBeGreaterThan(10);
    expect(chunks.join('')).toBe(res.text);
    expect(jsonOf(res.text)).toHaveProperty('files');
    expect(res.stopReason).toBe('stop');
    expect(res.model).toBe('llama3.1:8b');
    expect(res.usage.outputTokens).toBe(Math.ceil(res.text.length / 4));
    expect(res.usage.inputTokens).toBeGreaterThan(0);
    expect(provider()).toMatchObject({ id: 'openai', simulated: false });
  });

  it('works with a key and without one (local servers)', async () => {
    await expect(provider('sk-local-0123456789').stream(request())).resolves.toHaveProperty(
      'stopReason',
      'stop',
    );
    await expect(provider('').stream(request())).resolves.toHaveProperty('stopReason', 'stop');
  });

  it.each([
    [400, 'bad_request', false],
    [401, 'auth', false],
    [429, 'rate_limit', true],
    [500, 'server', true],
    [529, 'overloaded', true],
  ] as const)('maps HTTP %i to %s (retryable: %s)', async (status, kind, retryable) => {
    const error = await failure(provider().stream(request(`error=${status}@coder`)));
    expect(error).toMatchObject({ kind, status, retryable });
  });

  it.each([
    [429, 'rate_limit'],
    [529, 'overloaded'],
    [500, 'server'],
  ] as const)('maps an error chunk in the middle of the stream (%i) to %s', async (status, kind) => {
    const chunks: string[] = [];
    const error = await failure(
      provider().stream(request(`stream-error=${status}@coder`, { onText: (c) => chunks.push(c) })),
    );
    expect(chunks.length).toBeGreaterThan(0);
    expect(error).toMatchObject({ kind, status, retryable: true });
  });

  it('maps a dropped connection to a network error', async () => {
    expect(await failure(provider().stream(request('drop@coder')))).toMatchObject({ kind: 'network' });
  });

  it('stops on abort with "aborted"', async () => {
    const controller = new AbortController();
    const error = await failure(
      provider().stream(request('slow=50', { signal: controller.signal, onText: () => controller.abort() })),
    );
    expect(error).toMatchObject({ kind: 'aborted', retryable: false });
  });
});

describe('secrets in OpenAI-compatible errors', () => {
  let echo: Server;
  let echoUrl: string;
  beforeAll(async () => {
    echo = createServer((req, res) => {
      const body = JSON.stringify({
        error: {
          message: `bad credentials ${req.headers.authorization?.replace(/^Bearer /, '')}`,
          type: 'auth',
        },
      });
      res.writeHead(401, { 'content-type': 'application/json' }).end(body);
    });
    echo.listen(0, '127.0.0.1');
    await once(echo, 'listening');
    echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise((resolve) => echo.close(resolve)));

  it('never shows the key nor anything else the server answered: only the status', async () => {
    const key = 'gateway-secret-value-42';
    const error = await failure(createOpenAiProvider({ baseURL: echoUrl, apiKey: key }).stream(request()));
    expect(error.kind).toBe('auth');
    expect(error.message).toBe('OpenAI-compatible endpoint: 401 the endpoint refused the credentials');
    expect(error.message).not.toContain('bad credentials');
  });
});
