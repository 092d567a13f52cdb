import { randomUUID } from 'node:crypto';
import { createMemoryRateLimitStore, type RateLimitStore } from '../lib/rate-limit.js';
import { createRedisRateLimitStore } from '../lib/redis-rate-limit.js';
import { REDIS_URL, redisAvailable } from './lock-stores.js';

const opened: { close(): void }[] = [];

/** A Redis store under a prefix of its own, so test runs and parallel files never share counts. */
export function redisRateLimitStore(): RateLimitStore {
  const store = createRedisRateLimitStore(REDIS_URL, `autocoder-test:${randomUUID()}:`);
  opened.push(store);
  return store;
}

/** Closes the Redis connections the stores of a file opened (its afterAll). */
export function closeRateLimitStores(): void {
  for (const store of opened.splice(0)) store.close();
}

/** Both stores, for suites that must hold for each: [name, available, factory]. */
export const RATE_LIMIT_STORES: [string, boolean, () => RateLimitStore][] = [
  ['in-process', true, () => createMemoryRateLimitStore()],
  ['Redis', redisAvailable, redisRateLimitStore],
];
