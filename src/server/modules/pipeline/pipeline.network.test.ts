import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '@/server/db/schema.js';
import { createTestApp, type TestApp } from '@/server/testing/test-app.js';
import { LONG_TEST_MS, newTask, startRun, statusOf, taskEvents, taskStatusOf } from './testing/run-kit.js';

/**
 * A user-chosen OpenAI-compatible base URL on a server reachable from elsewhere (not on loopback):
 * loopback, private and link-local addresses are refused unless the operator allowed the host.
 */
let strict: TestApp;
let allowing: TestApp;
let failing: Server;
let failingPort: number;
const SECRET = 'INTERNAL-ONLY-db-password-hunter2';

beforeAll(async () => {
  strict = await createTestApp({ runtime: { network: { serverOnLoopback: false } } });
  allowing = await createTestApp({
    runtime: { network: { serverOnLoopback: false, allowedHosts: ['localhost'] } },
  });
  // An internal service that answers 500 with text nobody outside should read.
  failing = createServer((_req, res) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: `upstream failed: ${SECRET}`, type: 'server_error' } }));
  });
  failing.listen(0, '127.0.0.1');
  await once(failing, 'listening');
  failingPort = (failing.address() as AddressInfo).port;
});
afterAll(async () => {
  failing.close();
  await strict.close();
  await allowing.close();
});

const portOf = (url: string) => new URL(url).port;

describe('a user-set OpenAI-compatible base URL', () => {
  it('is refused for loopback, private and link-local addresses, in every spelling', async () => {
    const { client, taskId } = await newTask(strict);
    const port = portOf(strict.simulatorUrl);
    for (const base of [
      `http://127.0.0.1:${port}/v1`,
      'http://10.1.2.3/v1',
      'http://192.168.0.10:11434/v1',
      'http://169.254.169.254/latest',
      `http://[::ffff:127.0.0.1]:${port}/v1`,
      `http://[::1]:${port}/v1`,
      `http://localhost:${port}/v1`,
    ]) {
      const res = await startRun(client, taskId, { provider: 'openai', openaiBaseUrl: base });
      expect(res.status, base).toBe(400);
      expect(res.body.error).toBe('ADDRESS_NOT_ALLOWED');
    }
    const named = await startRun(client, taskId, {
      provider: 'openai',
      openaiBaseUrl: `http://localhost:${port}/v1`,
    });
    expect(named.body.message).toMatch(/^localhost is a local or private address/);
    expect(named.body.message).not.toContain('127.0.0.1');
    expect(await taskStatusOf(client, taskId)).toBe('backlog');
    expect((await client.get(`/api/pipeline/${taskId}/status`)).body).toEqual({ status: 'none' });
  });

  it(
    'reaches a host the operator listed in AUTOCODER_ALLOWED_HOSTS',
    async () => {
      const { client, taskId } = await newTask(allowing);
      const base = `http://localhost:${portOf(allowing.simulatorUrl)}/v1`;
      expect((await startRun(client, taskId, { provider: 'openai', openaiBaseUrl: base })).status).toBe(202);
      await allowing.deps.orchestrator.idle();
      expect(await statusOf(client, taskId)).toMatchObject({ status: 'passed', provider: 'openai' });
      // Only the named host: its address under another name is still refused.
      const other = await newTask(allowing);
      const literal = `http://127.0.0.1:${portOf(allowing.simulatorUrl)}/v1`;
      const res = await startRun(other.client, other.taskId, { provider: 'openai', openaiBaseUrl: literal });
      expect(res.body.error).toBe('ADDRESS_NOT_ALLOWED');
    },
    LONG_TEST_MS,
  );

  it(
    "never repeats what the endpoint answered: a 500's body stays out of the run, its events and the API",
    async () => {
      const { client, taskId } = await newTask(allowing);
      const base = `http://localhost:${failingPort}/v1`;
      expect((await startRun(client, taskId, { provider: 'openai', openaiBaseUrl: base })).status).toBe(202);
      await allowing.deps.orchestrator.idle();
      const run = await statusOf(client, taskId);
      expect(run.status).toBe('paused');
      expect(run.errorDetails?.message).toMatch(/500 the endpoint failed/);
      expect(JSON.stringify(run)).not.toContain(SECRET);
      expect(JSON.stringify(await taskEvents(allowing, taskId))).not.toContain(SECRET);
      const history = await client.get(`/api/pipeline/${taskId}/history`);
      expect(JSON.stringify(history.body)).not.toContain(SECRET);
      await allowing.deps.events.flush();
      for (const table of Object.values(schema)) {
        expect(JSON.stringify(await allowing.deps.db.select().from(table))).not.toContain(SECRET);
      }
    },
    LONG_TEST_MS,
  );
});
