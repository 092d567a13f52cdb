import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '@/server/testing/test-app.js';
import { newTask } from '../pipeline/testing/run-kit.js';
import { taskStream } from './bus.js';
import { eventually, SseConnection, serveOnSocket } from './testing/sse-client.js';

/** The keepalive comment and the connection timeout, with short settings. */
let t: TestApp;
let server: { url: string; close(): Promise<void> };

beforeAll(async () => {
  t = await createTestApp({ runtime: { sse: { keepaliveMs: 50, timeoutMs: 300 } } });
  server = await serveOnSocket(t.app);
});
afterAll(async () => {
  await server.close();
  await t.close();
});

describe('a quiet event stream', () => {
  it('sends keepalive comments, then a timeout event, then ends; nothing is left subscribed', async () => {
    const setup = await newTask(t);
    const conn = await SseConnection.open(`${server.url}/api/sse/${setup.taskId}`, {
      cookie: setup.client.cookie,
    });
    const frames = [];
    for (let frame = await conn.next(); frame; frame = await conn.next()) frames.push(frame);
    expect(frames[0]).toEqual({ comment: 'connected' });
    expect(frames.some((f) => f.comment === 'keepalive')).toBe(true);
    const timeout = frames.at(-1);
    expect(timeout?.event).toBe('timeout');
    expect(JSON.parse(timeout?.data ?? '{}')).toMatchObject({
      message: expect.stringContaining('Reconnect'),
      timestamp: expect.any(Number),
    });
    expect(frames.filter((f) => f.event)).toHaveLength(1);
    await eventually(
      () => t.deps.events.bus.listenerCount(taskStream(setup.taskId)) === 0,
      'the listener to go',
    );
  });

  it('ends open streams when the server shuts down', async () => {
    const other = await createTestApp({ runtime: { sse: { keepaliveMs: 60_000, timeoutMs: 600_000 } } });
    const socket = await serveOnSocket(other.app);
    try {
      const user = await newTask(other);
      const conn = await SseConnection.open(`${socket.url}/api/sse/${user.taskId}`, {
        cookie: user.client.cookie,
      });
      expect(await conn.next()).toEqual({ comment: 'connected' });
      const closing = other.close();
      expect(await conn.until(() => false)).toBeNull();
      await closing;
    } finally {
      await socket.close();
    }
  }, 180_000);
});
