import net from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessions } from '@/server/db/schema.js';
import { createTestApp, type TestApp } from '@/server/testing/test-app.js';
import { newTask, post, type TaskSetup } from '../pipeline/testing/run-kit.js';
import { taskStream } from './bus.js';
import { eventually, SseConnection, serveOnSocket } from './testing/sse-client.js';

/**
 * What bounds an open stream: a client that cannot keep up, the end of its session, and
 * the per-user cap — all over real sockets.
 */
let t: TestApp;
let server: { url: string; close(): Promise<void> };

const MAX_QUEUE = 256 * 1024;

beforeAll(async () => {
  // Session checks are slow here, so a logout that closes at once is not the periodic check's doing.
  t = await createTestApp({
    runtime: { sse: { maxQueueBytes: MAX_QUEUE, maxStreamsPerUser: 3, sessionCheckMs: 600_000 } },
  });
  server = await serveOnSocket(t.app);
});
afterAll(async () => {
  await server.close();
  await t.close();
});

const connect = (url: string, setup: Pick<TaskSetup, 'client' | 'taskId'>, headers = {}) =>
  SseConnection.open(`${url}/api/sse/${setup.taskId}`, { cookie: setup.client.cookie, ...headers });
const listeners = (app: TestApp, taskId: string) => app.deps.events.bus.listenerCount(taskStream(taskId));

/** Ids of the complete event frames in a raw response (headers and chunk sizes around them). */
function idsIn(raw: string): number[] {
  const complete = raw.slice(0, raw.lastIndexOf('\n\n'));
  return [...complete.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
}

describe('a client that cannot keep up', () => {
  it('is closed once its backlog passes the bound, and resumes from Last-Event-ID with every missed event in order', async () => {
    const setup = await newTask(t);
    const { port } = new URL(server.url);
    // A raw socket that sends the request, then stops reading: a stalled tab or a dead link.
    const socket = net.connect(Number(port), '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write(
      `GET /api/sse/${setup.taskId} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nCookie: ${setup.client.cookie}\r\n` +
        'Accept: text/event-stream\r\nLast-Event-ID: 0\r\n\r\n',
    );
    await eventually(() => Buffer.concat(received).includes(': connected'), 'the stream to open');
    socket.pause();
    await eventually(() => listeners(t, setup.taskId) === 1, 'the subscription');

    // ~24 MB of output: more than the kernel's socket buffers and the bound together.
    const stream = taskStream(setup.taskId);
    const text = 'x'.repeat(16 * 1024);
    const total = 1500;
    const dropped = t.deps.sseHub.stats.droppedSlow;
    for (let i = 1; i <= total && listeners(t, setup.taskId) > 0; i++) {
      await t.deps.events.append(stream, {
        type: 'agent-log',
        data: { runId: '', agent: 'coder', chunk: `${i}:${text}`, timestamp: i },
      });
      if (i % 20 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await eventually(() => listeners(t, setup.taskId) === 0, 'the slow client to be closed');
    expect(t.deps.sseHub.stats.droppedSlow).toBe(dropped + 1);
    const last = await t.deps.events.lastSeq(stream);
    expect(last).toBeLessThan(total); // it was closed while events were still coming

    socket.resume();
    await ended;
    const seen = idsIn(Buffer.concat(received).toString('utf8'));
    expect(seen).toEqual(seen.map((_, i) => i + 1));
    expect(seen.length).toBeLessThan(last);

    const resumed = await connect(server.url, setup, { 'last-event-id': String(seen.at(-1) ?? 0) });
    try {
      await resumed.until((f) => Number(f.id) === last);
    } finally {
      resumed.close();
    }
    expect([...seen, ...resumed.ids]).toEqual(Array.from({ length: last }, (_, i) => i + 1));
  }, 120_000);
});

describe('a session that ends', () => {
  it('closes its streams at once on logout, and only its own', async () => {
    const setup = await newTask(t);
    const other = await newTask(t);
    const mine = await connect(server.url, setup);
    const theirs = await connect(server.url, other);
    try {
      expect(await mine.next()).toEqual({ comment: 'connected' });
      expect(await theirs.next()).toEqual({ comment: 'connected' });
      expect((await post(setup.client, '/api/auth/logout')).status).toBe(204);
      expect(await mine.until(() => false)).toBeNull();
      await eventually(() => listeners(t, setup.taskId) === 0, 'the listener to go');
      expect(listeners(t, other.taskId)).toBe(1);
    } finally {
      mine.close();
      theirs.close();
    }
  });

  it('closes streams whose session expired or was deleted, at the next periodic check', async () => {
    const app = await createTestApp({ runtime: { sse: { sessionCheckMs: 100 } } });
    const local = await serveOnSocket(app.app);
    try {
      const expiring = await newTask(app);
      const deleted = await newTask(app);
      const staying = await newTask(app);
      const conns = await Promise.all([expiring, deleted, staying].map((s) => connect(local.url, s)));
      for (const conn of conns) expect(await conn.next()).toEqual({ comment: 'connected' });
      await app.database.db
        .update(sessions)
        .set({ expiresAt: new Date(Date.now() - 1000) })
        .where(eq(sessions.userId, expiring.userId));
      await app.database.db.delete(sessions).where(eq(sessions.userId, deleted.userId));
      expect(await conns[0]?.until(() => false)).toBeNull();
      expect(await conns[1]?.until(() => false)).toBeNull();
      expect(app.deps.sseHub.stats.closedSessionEnded).toBe(2);
      expect(listeners(app, staying.taskId)).toBe(1);
      for (const conn of conns) conn.close();
    } finally {
      await local.close();
      await app.close();
    }
  }, 120_000);
});

describe('the per-user cap', () => {
  it('closes the oldest stream when one more opens, and refuses none', async () => {
    const setup = await newTask(t);
    const conns: SseConnection[] = [];
    try {
      for (let i = 0; i < 4; i++) {
        const conn = await connect(server.url, setup);
        expect(conn.response.status).toBe(200);
        expect(await conn.next()).toEqual({ comment: 'connected' });
        conns.push(conn);
      }
      expect(await conns[0]?.until(() => false)).toBeNull();
      await eventually(() => listeners(t, setup.taskId) === 3, 'three streams left');
      // The other three are still live: an event reaches each of them.
      await t.deps.events.append(taskStream(setup.taskId), {
        type: 'agent-log',
        data: { runId: '', agent: 'coder', chunk: 'still here', timestamp: 1 },
      });
      for (const conn of conns.slice(1)) expect((await conn.next())?.data).toContain('still here');
      expect(t.deps.sseHub.stats.closedOverCap).toBe(1);
      expect(t.deps.sseHub.stats.open).toBeGreaterThanOrEqual(3);
    } finally {
      for (const conn of conns) conn.close();
    }
  });
});
