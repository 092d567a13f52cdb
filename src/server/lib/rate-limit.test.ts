import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestApp, TestClient } from '../testing/test-app.js';
import { createMemoryRateLimitStore, type RateLimitStore } from './rate-limit.js';
import { createRedisRateLimitStore } from './redis-rate-limit.js';

/** The Redis of this machine (REDIS_URL, else the default port); its tests skip where none answers. */
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const redisUp = await new Promise<boolean>((resolve) => {
  const url = new URL(REDIS_URL);
  const socket = net.connect({ host: url.hostname, port: Number(url.port || 6379) });
  socket.setTimeout(1000, () => socket.destroy());
  socket.on('connect', () => {
    socket.destroy();
    resolve(true);
  });
  socket.on('error', () => resolve(false));
  socket.on('close', () => resolve(false));
});
if (!redisUp) console.warn(`[rate-limit] no Redis at ${REDIS_URL}: its store's tests are skipped`);

const redisStores: { close(): void }[] = [];
afterAll(() => {
  for (const store of redisStores) store.close();
});

function redisStore() {
  // A prefix per test run: runs and parallel files never share counts.
  const store = createRedisRateLimitStore(REDIS_URL, `autocoder-test:${randomUUID()}:`);
  redisStores.push(store);
  return store;
}

const kinds: [string, boolean, () => RateLimitStore][] = [
  ['in-process', true, () => createMemoryRateLimitStore()],
  ['Redis', redisUp, redisStore],
];

describe.each(kinds)('%s rate-limit store', (_kind, available, makeStore) => {
  it.skipIf(!available)('gives concurrent hits distinct counts, one each', async () => {
    const store = makeStore();
    const now = Date.now();
    const counts = await Promise.all(Array.from({ length: 50 }, () => store.hit('k', 60_000, now)));
    expect(counts.map((c) => c.count).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
    for (const { resetAt } of counts) {
      expect(resetAt).toBeGreaterThan(now + 59_000);
      expect(resetAt).toBeLessThanOrEqual(now + 60_000);
    }
  });

  it.skipIf(!available)('starts again after a reset and after the window', async () => {
    const store = makeStore();
    await store.hit('a', 60_000, Date.now());
    expect((await store.hit('a', 60_000, Date.now())).count).toBe(2);
    await store.reset('a');
    expect((await store.hit('a', 60_000, Date.now())).count).toBe(1);

    const start = Date.now();
    await store.hit('b', 150, start);
    expect((await store.hit('b', 150, start)).count).toBe(2);
    await sleep(250);
    // The in-process store reads the app's clock; Redis expires by its own.
    expect((await store.hit('b', 150, Date.now())).count).toBe(1);
  });

  it.skipIf(!available)('holds the failed-login limit under 20 parallel wrong passwords', async () => {
    const t = await createTestApp({ runtime: { rateLimitStore: makeStore() } });
    try {
      const email = 'parallel@example.com';
      await new TestClient(t.app).post('/api/auth/register', { email, password: 'right-password' });
      const statuses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          new TestClient(t.app)
            .post('/api/auth/login', { email, password: `guess-${i}` })
            .then((r) => r.status),
        ),
      );
      expect(statuses.filter((s) => s === 401)).toHaveLength(10);
      expect(statuses.filter((s) => s === 429)).toHaveLength(10);
    } finally {
      await t.close();
    }
  });
});
