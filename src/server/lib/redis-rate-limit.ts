import type { BackoffAttempt, RateLimitStore } from './rate-limit.js';
import { RedisClient, redisScript } from './redis.js';

/*
 * Layout: a window is a hash { count, resetAt }, a backoff a hash { failures, last, forgetAt }, each
 * under <prefix><key>. Times are the app's clock (ARGV), as in the in-process store; Redis's own
 * expiry only removes a key once the app no longer needs it. Lua numbers are doubles: times are
 * written with '%.0f', never tostring (which would write 1.7e+12).
 */

/** A key of another type (a counter of an older version) is dropped rather than failing every hit. */
const OWN_TYPE = `
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind ~= 'hash' and kind ~= 'none' then redis.call('DEL', KEYS[1]) end
`;

/** ARGV: cost, window, now. Returns { count, resetAt }. */
const HIT = redisScript(`${OWN_TYPE}
local cost, window, now = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local resetAt = tonumber(redis.call('HGET', KEYS[1], 'resetAt'))
if not resetAt or resetAt <= now then
  if cost <= 0 then return { 0, ARGV[3] } end
  resetAt = now + window
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[1], 'resetAt', string.format('%.0f', resetAt))
  redis.call('PEXPIRE', KEYS[1], window)
end
local count = redis.call('HINCRBY', KEYS[1], 'count', cost)
return { count, string.format('%.0f', resetAt) }`);

/**
 * ARGV: now, free, base, max, forget, minimum gap. Returns { 1, failures } when allowed (and
 * counted), { 0, retryAt } when refused. The same rule as `backoffDelay`.
 */
const ATTEMPT = redisScript(`${OWN_TYPE}
local now, free, base, max, forget, gap =
  tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local state = redis.call('HMGET', KEYS[1], 'failures', 'last', 'forgetAt')
local failures, last, forgetAt = tonumber(state[1]) or 0, tonumber(state[2]) or 0, tonumber(state[3]) or 0
if forgetAt <= now then failures = 0 end
if failures > 0 then
  local delay = 0
  if failures >= free then delay = math.min(max, base * 2 ^ math.min(failures - free, 40)) end
  delay = math.max(delay, gap)
  if now < last + delay then return { 0, string.format('%.0f', last + delay) } end
end
failures = failures + 1
redis.call('HSET', KEYS[1], 'failures', failures, 'last', ARGV[1], 'forgetAt', string.format('%.0f', now + forget))
redis.call('PEXPIRE', KEYS[1], forget)
return { 1, failures }`);

/** The rate-limit store shared by every server process, in Redis (REDIS_URL). */
export function createRedisRateLimitStore(
  url: string,
  prefix = 'autocoder:rate:',
): RateLimitStore & { close(): void } {
  const client = new RedisClient(new URL(url));
  const pair = (reply: unknown, what: string): [number, number] => {
    const [a, b] = Array.isArray(reply) ? reply : [];
    const first = Number(a);
    const second = Number(b);
    if (!Number.isFinite(first) || !Number.isFinite(second)) {
      throw new Error(`Redis: unexpected reply to the ${what} script`);
    }
    return [first, second];
  };
  return {
    async hit(key, windowMs, now, cost = 1) {
      const reply = await client.eval(HIT, [prefix + key], [cost, windowMs, now]);
      const [count, resetAt] = pair(reply, 'rate-limit');
      return { count, resetAt };
    },
    async attempt(key, now, rule, minGapMs = 0): Promise<BackoffAttempt> {
      const reply = await client.eval(
        ATTEMPT,
        [prefix + key],
        [now, rule.free, rule.baseMs, rule.maxMs, rule.forgetMs, minGapMs],
      );
      const [allowed, value] = pair(reply, 'backoff');
      return allowed === 1 ? { allowed: true, failures: value } : { allowed: false, retryAt: value };
    },
    async reset(key) {
      await client.command(['DEL', prefix + key]);
    },
    close: () => client.close(),
  };
}
