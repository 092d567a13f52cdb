/**
 * Counters for rate limits and backoffs, in this process or in Redis (`redis-rate-limit.ts`), behind
 * one interface. Every time is the app's clock (`now`), in either store, so limits follow the same
 * clock as everything else (and a test's movable one).
 */
export interface RateLimitStore {
  /**
   * Adds `cost` to the key's fixed window (opened by its first hit, `windowMs` long) and returns
   * the new count and when the window ends (ms since epoch), as one atomic step: concurrent hits
   * each see a distinct count. A cost of 0 reads the count and a negative one gives back an earlier
   * hit: neither opens a window.
   */
  hit(key: string, windowMs: number, now: number, cost?: number): Promise<{ count: number; resetAt: number }>;
  /**
   * One attempt under exponential backoff (`backoffDelay`), in one atomic step: refused, and not
   * counted, while `now` is earlier than the last failure plus the delay its failures have earned;
   * otherwise counted as one more failure before it is made, so that parallel attempts cannot all
   * slip under the rule. A success is then recorded by `reset`.
   */
  attempt(key: string, now: number, rule: BackoffRule, minGapMs?: number): Promise<BackoffAttempt>;
  /** Forgets the key: its window or its failures. */
  reset(key: string): Promise<void>;
}

/** How a backoff grows: `free` failures wait for nothing, then each waits twice as long as the last. */
export interface BackoffRule {
  free: number;
  /** The wait after the first failure past the free ones. */
  baseMs: number;
  maxMs: number;
  /** Failures are forgotten this long after the last one. */
  forgetMs: number;
}

export type BackoffAttempt =
  /** `failures` counts this attempt. */
  | { allowed: true; failures: number }
  /** Not before `retryAt` (ms since epoch). */
  | { allowed: false; retryAt: number };

/**
 * How long after its last failure a key waits before its next attempt: nothing for the first
 * `rule.free` failures, then `baseMs`, doubling with each failure up to `maxMs`; and, once it has
 * failed at all, at least `minGapMs`.
 */
export function backoffDelay(failures: number, rule: BackoffRule, minGapMs = 0): number {
  if (failures <= 0) return 0;
  const past = failures - rule.free;
  const own = past < 0 ? 0 : Math.min(rule.maxMs, rule.baseMs * 2 ** Math.min(past, 40));
  return Math.max(own, minGapMs);
}

export function createMemoryRateLimitStore(maxKeys = 100_000): RateLimitStore {
  const windows = new Map<string, { count: number; resetAt: number }>();
  const backoffs = new Map<string, { failures: number; last: number; forgetAt: number }>();
  const sweep = (now: number) => {
    if (windows.size >= maxKeys) for (const [key, e] of windows) if (e.resetAt <= now) windows.delete(key);
    if (backoffs.size >= maxKeys)
      for (const [key, e] of backoffs) if (e.forgetAt <= now) backoffs.delete(key);
  };
  return {
    async hit(key, windowMs, now, cost = 1) {
      sweep(now);
      let entry = windows.get(key);
      if (!entry || entry.resetAt <= now) {
        if (cost <= 0) return { count: 0, resetAt: now };
        entry = { count: 0, resetAt: now + windowMs };
        windows.set(key, entry);
      }
      entry.count += cost;
      return { ...entry };
    },
    async attempt(key, now, rule, minGapMs = 0) {
      sweep(now);
      const known = backoffs.get(key);
      const failures = known && known.forgetAt > now ? known.failures : 0;
      const last = known?.last ?? 0;
      const retryAt = last + backoffDelay(failures, rule, minGapMs);
      if (failures > 0 && now < retryAt) return { allowed: false, retryAt };
      backoffs.set(key, { failures: failures + 1, last: now, forgetAt: now + rule.forgetMs });
      return { allowed: true, failures: failures + 1 };
    },
    async reset(key) {
      windows.delete(key);
      backoffs.delete(key);
    },
  };
}

export interface RateLimits {
  /** Login and register requests per client address. Loose: a team behind one NAT must not meet it. */
  perIp: { max: number; windowMs: number };
  /**
   * Failed logins per client address, whatever the accounts: one address trying many accounts
   * (credential stuffing, password spraying) is refused, every account alike, until the window ends.
   */
  failedLoginsPerAddress: { max: number; windowMs: number };
  /** Failed logins per account from one address: what stops one address guessing one password. */
  loginBackoff: BackoffRule;
  /**
   * Failed logins per account from every address, in a window: past `after`, an address that has
   * already failed for the account waits at least `baseMs` between attempts, doubling with every
   * `after` more failures up to `maxMs`. An address that has not failed for it waits for nothing,
   * so the owner, from anywhere else, always signs in.
   */
  accountBackoff: { after: number; windowMs: number; baseMs: number; maxMs: number };
}

export const DEFAULT_RATE_LIMITS: RateLimits = {
  perIp: { max: 30, windowMs: 60_000 },
  failedLoginsPerAddress: { max: 30, windowMs: 15 * 60_000 },
  loginBackoff: { free: 5, baseMs: 30_000, maxMs: 15 * 60_000, forgetMs: 24 * 60 * 60_000 },
  accountBackoff: { after: 10, windowMs: 15 * 60_000, baseMs: 5_000, maxMs: 5 * 60_000 },
};
