import type { RateLimitStore } from './rate-limit.js';
import { RedisClient, redisScript } from './redis.js';

/**
 * Increment-and-read in one step: the first hit of a window sets its expiry, every hit returns
 * the new count and the time left, so concurrent hits (from any process) each see a distinct count.
 */
const HIT = redisScript(`
local count = redis.call('INCRBY', KEYS[1], ARGV[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  ttl = tonumber(ARGV[2])
end
return { count, ttl }`);

/**
 * The rate-limit store shared by every server process, in Redis (REDIS_URL). Windows expire by
 * Redis's clock; `now` only turns the time left into a reset time.
 */
export function createRedisRateLimitStore(
  url: string,
  prefix = 'autocoder:rate:',
): RateLimitStore & { close(): void } {
  const client = new RedisClient(new URL(url));
  return {
    async hit(key, windowMs, now, cost = 1) {
      const reply = await client.eval(HIT, [prefix + key], [cost, windowMs]);
      const [count, ttl] = Array.isArray(reply) ? reply : [];
      if (typeof count !== 'number' || typeof ttl !== 'number') {
        throw new Error('Redis: unexpected reply to the rate-limit script');
      }
      return { count, resetAt: now + ttl };
    },
    async reset(key) {
      await client.command(['DEL', prefix + key]);
    },
    close: () => client.close(),
  };
}
