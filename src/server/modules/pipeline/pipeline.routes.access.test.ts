import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, signedInClient, type TestApp, TestClient } from '@/server/testing/test-app.js';
import {
  LONG_TEST_MS,
  newTask,
  runToEnd,
  startRun,
  statusOf,
  type TaskSetup,
  taskStatusOf,
} from './testing/run-kit.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

describe("ids, sessions and ownership (another user's task answers 404)", () => {
  let owner: TaskSetup;
  let runId: string;
  let stranger: TestClient;

  beforeAll(async () => {
    owner = await newTask(t);
    runId = (await runToEnd(t, owner.client, owner.taskId)).runId;
    stranger = (await signedInClient(t.app)).client;
  }, LONG_TEST_MS);

  const routes = (taskId: string): [string, string, unknown?][] => [
    ['POST', `/api/tasks/${taskId}/start-pipeline`, { provider: 'simulator' }],
    ['GET', `/api/pipeline/${taskId}/status`],
    ['GET', `/api/pipeline/${taskId}/runs`],
    ['POST', `/api/pipeline/${taskId}/retry`, {}],
    ['POST', `/api/pipeline/${taskId}/cancel`, {}],
    ['POST', `/api/pipeline/${taskId}/approve`, {}],
    ['POST', `/api/pipeline/${taskId}/request-changes`, { feedback: 'Change it' }],
    ['GET', `/api/sse/${taskId}`],
  ];

  it('answers 404 for another user’s task on every route, and changes nothing', async () => {
    for (const [method, url, body] of routes(owner.taskId)) {
      const res = await stranger.request(method, url, body);
      expect({ url, status: res.status }).toEqual({ url, status: 404 });
      expect((res.body as { error: string }).error).toBe('TASK_NOT_FOUND');
    }
    const events = await stranger.get(`/api/pipeline/runs/${runId}/events`);
    expect(events.status).toBe(404);
    expect(events.body.error).toBe('RUN_NOT_FOUND');
    expect(await statusOf(owner.client, owner.taskId)).toMatchObject({ runId, status: 'passed' });
    expect(await taskStatusOf(owner.client, owner.taskId)).toBe('review');
  });

  it('answers 404 for a task or run that does not exist', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    for (const [method, url, body] of routes(missing)) {
      const res = await owner.client.request(method, url, body);
      expect({ url, status: res.status }).toEqual({ url, status: 404 });
    }
    expect((await owner.client.get(`/api/pipeline/runs/${missing}/events`)).status).toBe(404);
  });

  it('answers 400 for an id that is not a UUID', async () => {
    for (const [method, url, body] of routes('not-a-uuid')) {
      const res = await owner.client.request(method, url, body);
      expect({ url, status: res.status }).toEqual({ url, status: 400 });
      expect((res.body as { error: string }).error).toBe('VALIDATION_ERROR');
    }
    expect((await owner.client.get('/api/pipeline/runs/not-a-uuid/events')).status).toBe(400);
  });

  it('answers 401 without a session', async () => {
    const anonymous = new TestClient(t.app);
    for (const [method, url, body] of routes(owner.taskId)) {
      const res = await anonymous.request(method, url, body);
      expect({ url, status: res.status }).toEqual({ url, status: 401 });
    }
    expect((await anonymous.get(`/api/pipeline/runs/${runId}/events`)).status).toBe(401);
  });

  it('answers 400 (never 500) for malformed bodies', async () => {
    const { client, taskId } = await newTask(t);
    const bad = await client.request('POST', `/api/tasks/${taskId}/start-pipeline`, '{not json');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('INVALID_JSON');
    const unknown = await startRun(client, taskId, { provider: 'simulator', surprise: true });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toBe('VALIDATION_ERROR');
    const provider = await startRun(client, taskId, { provider: 'gpt-local' });
    expect(provider.status).toBe(400);
    expect(await taskStatusOf(client, taskId)).toBe('backlog');
  });
});
