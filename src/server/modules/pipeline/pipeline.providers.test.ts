import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '@/server/db/schema.js';
import { createTestApp, type TestApp } from '@/server/testing/test-app.js';
import { startSimulator } from '../llm/simulator/server.js';
import { type LlmProxy, startLlmProxy } from './testing/llm-proxy.js';
import {
  LONG_TEST_MS,
  newTask,
  post,
  startRun,
  statusOf,
  taskEvents,
  taskStatusOf,
} from './testing/run-kit.js';

/**
 * The real providers against compatible endpoints: the simulator, reached the way a deployment
 * reaches Anthropic (ANTHROPIC_BASE_URL, the official SDK, a key from the request header, no
 * simulator headers) or an OpenAI-compatible server (base URL from the request).
 */
let t: TestApp;
let proxy: LlmProxy;
let simulatorUrl: string;
let closeSimulator: () => Promise<void>;
const KEY = 'sk-ant-test-0123456789abcdef';

beforeAll(async () => {
  const simulator = await startSimulator({ chunkDelayMs: 0 });
  closeSimulator = simulator.close;
  simulatorUrl = simulator.url;
  proxy = await startLlmProxy(simulator.url);
  t = await createTestApp({
    runtime: { simulatorUrl: simulator.url, providerDefaults: { anthropicBaseUrl: proxy.url } },
  });
});
afterAll(async () => {
  await t.close();
  await proxy.close();
  await closeSimulator();
});

const withKey = { 'x-anthropic-key': KEY };

/** Every row of every table, as text: where a stored key would show. */
async function everythingStored(): Promise<string> {
  await t.deps.events.flush();
  const parts: string[] = [];
  for (const table of Object.values(schema)) parts.push(JSON.stringify(await t.deps.db.select().from(table)));
  return parts.join('\n');
}

describe('provider "anthropic" with an x-anthropic-key header', () => {
  it(
    'runs to a pass through the Anthropic-compatible endpoint, reported as not simulated',
    async () => {
      const { client, taskId } = await newTask(t, { coderEngine: 'one-shot' });
      const res = await startRun(client, taskId, { provider: 'anthropic' }, withKey);
      expect(res.status).toBe(202);
      await t.deps.orchestrator.idle();
      const run = await statusOf(client, taskId);
      expect(run).toMatchObject({ status: 'passed', provider: 'anthropic', simulated: false });
      expect(run.calls.every((c) => c.model === 'claude-sonnet-4-20250514')).toBe(true);
      expect(run.usage.costUsd).toBeGreaterThan(0);
      expect(await taskStatusOf(client, taskId)).toBe('review');
      const byThisRun = proxy.requests.filter((r) => r.agent !== undefined);
      expect(byThisRun.length).toBe(run.calls.length);
      // The simulator's own headers are not sent to a real provider.
      expect(byThisRun.every((r) => r.runId === undefined)).toBe(true);
    },
    LONG_TEST_MS,
  );

  it(
    'uses the models the person chose',
    async () => {
      const { client, taskId } = await newTask(t, { coderEngine: 'one-shot' });
      const agents = { reviewer: { model: 'claude-opus-4-1', maxTokens: 2048 } };
      expect((await startRun(client, taskId, { provider: 'anthropic', agents }, withKey)).status).toBe(202);
      await t.deps.orchestrator.idle();
      const run = await statusOf(client, taskId);
      expect(run.status).toBe('passed');
      expect(run.calls.find((c) => c.agent === 'reviewer')?.model).toBe('claude-opus-4-1');
      expect(run.calls.find((c) => c.agent === 'planner')?.model).toBe('claude-sonnet-4-20250514');
    },
    LONG_TEST_MS,
  );

  it(
    'needs the key again to retry (it was never kept), then resumes',
    async () => {
      // The simulator also reads directives from the prompt: the task's description carries them here.
      const { client, taskId } = await newTask(t, {
        coderEngine: 'one-shot',
        title: 'Paused on purpose',
        description: 'Greets people. [simulate: error=429@coder]',
      });
      expect((await startRun(client, taskId, { provider: 'anthropic' }, withKey)).status).toBe(202);
      await t.deps.orchestrator.idle();
      expect((await statusOf(client, taskId)).errorDetails).toMatchObject({
        statusCode: 429,
        failedAgent: 'coder',
      });

      const without = await post(client, `/api/pipeline/${taskId}/retry`);
      expect(without.status).toBe(400);
      expect(without.body.error).toBe('INVALID_API_KEY');
      expect((await statusOf(client, taskId)).status).toBe('paused');

      expect((await post(client, `/api/pipeline/${taskId}/retry`, {}, withKey)).status).toBe(202);
      await t.deps.orchestrator.idle();
      expect((await statusOf(client, taskId)).status).toBe('passed');
    },
    LONG_TEST_MS,
  );

  it('never stores the key: no table and no event holds it', async () => {
    const stored = await everythingStored();
    expect(stored.length).toBeGreaterThan(1000);
    expect(stored).not.toContain(KEY);
    expect(stored).not.toContain('0123456789abcdef');
  });

  it(
    'never sends the key back in an answer or an event',
    async () => {
      const { client, taskId } = await newTask(t, { coderEngine: 'one-shot' });
      const res = await startRun(client, taskId, { provider: 'anthropic' }, withKey);
      expect(JSON.stringify(res.body)).not.toContain(KEY);
      await t.deps.orchestrator.idle();
      const status = await client.get(`/api/pipeline/${taskId}/status`);
      expect(JSON.stringify(status.body)).not.toContain(KEY);
      expect(JSON.stringify(await taskEvents(t, taskId))).not.toContain(KEY);
    },
    LONG_TEST_MS,
  );
});

describe('a key the endpoint refuses', () => {
  it(
    'fails the run, not retryable, without leaking the key in the error',
    async () => {
      const { client, taskId } = await newTask(t, {
        coderEngine: 'one-shot',
        title: 'Refused key',
        description: 'Greets people. [simulate: error=401@planner]',
      });
      expect((await startRun(client, taskId, { provider: 'anthropic' }, withKey)).status).toBe(202);
      await t.deps.orchestrator.idle();
      const run = await statusOf(client, taskId);
      expect(run).toMatchObject({ status: 'failed' });
      expect(run.errorDetails).toMatchObject({ statusCode: 401, retryable: false });
      expect(JSON.stringify(run)).not.toContain(KEY);
      expect(await taskStatusOf(client, taskId)).toBe('backlog');
    },
    LONG_TEST_MS,
  );
});

describe('provider "openai" (an OpenAI-compatible endpoint: Ollama, vLLM…)', () => {
  const OPENAI_KEY = 'sk-openai-test-secret-42';

  it(
    'runs to a pass through the endpoint given in the request, reported as not simulated',
    async () => {
      const { client, taskId } = await newTask(t, { coderEngine: 'one-shot' });
      const res = await startRun(
        client,
        taskId,
        {
          provider: 'openai',
          openaiBaseUrl: `${simulatorUrl}/v1`,
          agents: { planner: { model: 'llama3', maxTokens: 4096 } },
        },
        { 'x-openai-key': OPENAI_KEY },
      );
      expect(res.status).toBe(202);
      await t.deps.orchestrator.idle();
      const run = await statusOf(client, taskId);
      expect(run).toMatchObject({ status: 'passed', provider: 'openai', simulated: false });
      expect(run.calls.find((c) => c.agent === 'planner')?.model).toBe('llama3');
      expect(run.usage.inputTokens).toBeGreaterThan(0);
      expect(await everythingStored()).not.toContain(OPENAI_KEY);
    },
    LONG_TEST_MS,
  );

  it('needs a base URL: 400 INVALID_API_KEY without one', async () => {
    const { client, taskId } = await newTask(t, { coderEngine: 'one-shot' });
    const res = await startRun(client, taskId, { provider: 'openai' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('INVALID_API_KEY');
    const bad = await startRun(client, taskId, { provider: 'openai', openaiBaseUrl: 'file:///etc/passwd' });
    expect(bad.status).toBe(400);
    expect(await taskStatusOf(client, taskId)).toBe('backlog');
  });
});
