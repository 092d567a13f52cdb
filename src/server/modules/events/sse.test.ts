import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '@/contracts/pipeline.js';
import { createTestApp, type TestApp } from '@/server/testing/test-app.js';
import {
  isPhase,
  LONG_TEST_MS,
  newTask,
  post,
  startOk,
  type TaskSetup,
  taskEvents,
} from '../pipeline/testing/run-kit.js';
import { taskStream } from './bus.js';
import {
  type SseConnection as Conn,
  eventually,
  SseConnection,
  serveOnSocket,
} from './testing/sse-client.js';

let t: TestApp;
let server: { url: string; close(): Promise<void> };

beforeAll(async () => {
  t = await createTestApp();
  server = await serveOnSocket(t.app);
});
afterAll(async () => {
  await server.close();
  await t.close();
});

function connect(setup: Pick<TaskSetup, 'client' | 'taskId'>, headers: Record<string, string> = {}) {
  return SseConnection.open(`${server.url}/api/sse/${setup.taskId}`, {
    cookie: setup.client.cookie,
    ...headers,
  });
}

const listeners = (taskId: string) => t.deps.events.bus.listenerCount(taskStream(taskId));
const isComplete = (frame: { event?: string }) => frame.event === 'pipeline-complete';

/** Frames as stored events, to compare with the log. */
const asEvents = (conn: Conn) =>
  conn.events
    .filter((f) => f.id)
    .map((f) => ({ id: Number(f.id), type: f.event, data: JSON.parse(f.data ?? 'null') }));

describe('GET /api/sse/:taskId over a socket', () => {
  it('answers with event-stream headers and a comment at once', async () => {
    const setup = await newTask(t);
    const conn = await connect(setup);
    try {
      expect(conn.response.status).toBe(200);
      expect(conn.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(conn.response.headers.get('cache-control')).toContain('no-cache');
      expect(conn.response.headers.get('x-accel-buffering')).toBe('no');
      const first = await conn.next();
      expect(first?.comment).toBe('connected');
      await eventually(() => listeners(setup.taskId) === 1, 'the subscription');
    } finally {
      conn.close();
    }
    await eventually(() => listeners(setup.taskId) === 0, 'the listener to go');
  });

  it('refuses a stranger (404) and an anonymous client (401)', async () => {
    const setup = await newTask(t);
    const stranger = await newTask(t);
    const res = await fetch(`${server.url}/api/sse/${setup.taskId}`, {
      headers: { cookie: stranger.client.cookie },
    });
    expect(res.status).toBe(404);
    const anonymous = await fetch(`${server.url}/api/sse/${setup.taskId}`);
    expect(anonymous.status).toBe(401);
    expect(listeners(setup.taskId)).toBe(0);
  });

  it(
    'resumes after a dropped connection from Last-Event-ID: every event exactly once, in order',
    async () => {
      const setup = await newTask(t);
      const first = await connect(setup);
      await startOk(setup.client, setup.taskId, { scenario: 'slow=5' });
      // Read until the run is coding, then lose the connection mid-run.
      await first.until((f) => f.event === 'phase-change' && JSON.parse(f.data ?? '{}').phase === 'coding');
      first.close();
      const seen = first.ids;
      const lastId = seen.at(-1)!;
      expect(seen).toEqual(seen.map((_, i) => i + 1));
      await eventually(() => listeners(setup.taskId) === 0, 'the dropped client’s listener to go');

      const second = await connect(setup, { 'last-event-id': String(lastId) });
      try {
        expect(await second.until(isComplete)).not.toBeNull();
      } finally {
        second.close();
      }
      await t.deps.orchestrator.idle();

      const union = [...seen, ...second.ids];
      const stored = await taskEvents(t, setup.taskId);
      expect(union).toEqual(stored.map((e) => e.id));
      expect(union).toEqual(union.map((_, i) => i + 1));
      expect([...asEvents(first), ...asEvents(second)]).toEqual(stored);
      // Some events arrived from the log (missed while away), some live: both paths were used.
      expect(second.ids[0]).toBe(lastId + 1);
      await eventually(() => listeners(setup.taskId) === 0, 'the listener to go');
    },
    LONG_TEST_MS,
  );

  it(
    'gives every event to every client of a task',
    async () => {
      const setup = await newTask(t);
      const clients = await Promise.all([connect(setup), connect(setup), connect(setup)]);
      try {
        await eventually(() => listeners(setup.taskId) === 3, 'three subscriptions');
        await startOk(setup.client, setup.taskId);
        for (const conn of clients) expect(await conn.until(isComplete)).not.toBeNull();
      } finally {
        for (const conn of clients) conn.close();
      }
      await t.deps.orchestrator.idle();
      const stored = await taskEvents(t, setup.taskId);
      for (const conn of clients) expect(asEvents(conn)).toEqual(stored);
      await eventually(() => listeners(setup.taskId) === 0, 'all listeners to go');
    },
    LONG_TEST_MS,
  );

  it(
    'replays the latest run from its first event to a fresh connection (a page reload)',
    async () => {
      const setup = await newTask(t);
      await startOk(setup.client, setup.taskId, { scenario: 'error=500@planner' });
      await t.deps.orchestrator.idle();
      expect((await post(setup.client, `/api/pipeline/${setup.taskId}/cancel`)).status).toBe(200);
      const latest = await startOk(setup.client, setup.taskId);
      await t.deps.orchestrator.idle();

      const conn = await connect(setup);
      try {
        expect(await conn.until(isComplete)).not.toBeNull();
      } finally {
        conn.close();
      }
      const ofLatest = await setup.client.get<{ events: StoredEvent[] }>(
        `/api/pipeline/runs/${latest}/events`,
      );
      expect(asEvents(conn)).toEqual(ofLatest.body.events);
      // The run's first event is its summary, so a fresh connection knows the run from its first frame.
      expect(conn.events[0]).toMatchObject({ event: 'run-update' });
      expect(JSON.parse(conn.events[0]?.data ?? '{}')).toMatchObject({
        run: { id: latest, status: 'running', phase: 'planning' },
      });
      expect(conn.events.find((e) => e.event === 'task-status')?.data).toMatch(/"newStatus":"spec"/);
      const all = await taskEvents(t, setup.taskId);
      expect(conn.ids[0]).toBeGreaterThan(all.find(isPhase('cancelled'))!.id);
    },
    LONG_TEST_MS,
  );

  it(
    'replays more events than one page of the log without a gap',
    async () => {
      const setup = await newTask(t);
      const stream = taskStream(setup.taskId);
      const total = 10_050;
      for (let i = 0; i < total; i++) {
        void t.deps.events.append(stream, {
          type: 'agent-log',
          data: { runId: '', agent: 'coder', chunk: `c${i}`, timestamp: i },
        });
      }
      await t.deps.events.flush();
      const conn = await connect(setup, { 'last-event-id': '0' });
      try {
        await conn.until((f) => Number(f.id) >= 10_000);
        // One live event after the replay: it must come after all the stored ones, not instead of them.
        await t.deps.events.append(stream, {
          type: 'agent-log',
          data: { runId: '', agent: 'coder', chunk: 'live', timestamp: total },
        });
        await conn.until((f) => Number(f.id) === total + 1);
      } finally {
        conn.close();
      }
      expect(conn.ids).toEqual(Array.from({ length: total + 1 }, (_, i) => i + 1));
    },
    LONG_TEST_MS,
  );
});

describe('GET /api/sse/projects/:projectId', () => {
  it(
    'tells the board about task moves and run summaries, and only the owner',
    async () => {
      const setup = await newTask(t);
      const stranger = await newTask(t);
      const refused = await fetch(`${server.url}/api/sse/projects/${setup.projectId}`, {
        headers: { cookie: stranger.client.cookie },
      });
      expect(refused.status).toBe(404);

      const conn = await SseConnection.open(`${server.url}/api/sse/projects/${setup.projectId}`, {
        cookie: setup.client.cookie,
      });
      try {
        expect(await conn.next()).toEqual({ comment: 'connected' });
        const runId = await startOk(setup.client, setup.taskId);
        await conn.until(
          (f) => f.event === 'run-update' && JSON.parse(f.data ?? '{}').run.status === 'passed',
        );
        await conn.until(
          (f) => f.event === 'task-status' && JSON.parse(f.data ?? '{}').newStatus === 'review',
        );
        const moves = conn.events
          .filter((f) => f.event === 'task-status')
          .map((f) => JSON.parse(f.data ?? '{}') as { taskId: string; newStatus: string });
        expect(moves.map((m) => m.newStatus)).toEqual(['spec', 'building', 'review']);
        expect(moves.every((m) => m.taskId === setup.taskId)).toBe(true);
        const updates = conn.events
          .filter((f) => f.event === 'run-update')
          .map((f) => JSON.parse(f.data ?? '{}'));
        expect(updates.every((u) => u.run.id === runId && typeof u.timestamp === 'number')).toBe(true);
        expect(JSON.stringify(updates)).not.toContain('agent-log');
      } finally {
        conn.close();
      }
      await t.deps.orchestrator.idle();
    },
    LONG_TEST_MS,
  );
});

describe('GET /api/pipeline/runs/:runId/events', () => {
  it(
    'returns the run’s events after a given id',
    async () => {
      const setup = await newTask(t);
      const runId = await startOk(setup.client, setup.taskId);
      await t.deps.orchestrator.idle();
      const stored = await taskEvents(t, setup.taskId);
      const res = await setup.client.get<{ runId: string; events: StoredEvent[] }>(
        `/api/pipeline/runs/${runId}/events?after=10`,
      );
      expect(res.status).toBe(200);
      expect(res.body.runId).toBe(runId);
      expect(res.body.events).toEqual(stored.filter((e) => e.id > 10));
    },
    LONG_TEST_MS,
  );
});
