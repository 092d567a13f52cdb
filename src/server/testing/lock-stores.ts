import { randomUUID } from 'node:crypto';
import net from 'node:net';
import type { LockStore } from '../modules/coordination/lock-store.js';
import { createMemoryLockStore } from '../modules/coordination/memory-lock-store.js';
import { createRedisLockStore } from '../modules/coordination/redis-lock-store.js';

/**
 * The Redis of this machine. When REDIS_URL is set (CI) its tests always run, and fail if it does not
 * answer; otherwise the default port is tried and the Redis tests are skipped where none answers.
 */
export const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

export const redisAvailable: boolean = process.env.REDIS_URL
  ? true
  : await new Promise<boolean>((resolve) => {
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

/** A Redis store under a prefix of its own, so test runs and parallel files never share locks. */
export const redisLockStore = (): LockStore =>
  createRedisLockStore(REDIS_URL, `autocoder-test:${randomUUID()}:`);

/** Both stores, for suites that must hold for each: [name, available, factory]. */
export const LOCK_STORES: [string, boolean, () => LockStore][] = [
  ['in-process', true, createMemoryLockStore],
  ['Redis', redisAvailable, redisLockStore],
];
