/** A fixed-window counter store. In-process now; a Redis implementation can stand behind the same interface. */
export interface RateLimitStore {
  /**
   * Adds `cost` to the key's window and returns the new count and when the window ends (ms since
   * epoch), as one atomic step: concurrent hits each see a distinct count.
   */
  hit(key: string, windowMs: number, now: number, cost?: number): Promise<{ count: number; resetAt: number }>;
  reset(key: string): Promise<void>;
}

export function createMemoryRateLimitStore(maxKeys = 100_000): RateLimitStore {
  const windows = new Map<string, { count: number; resetAt: number }>();
  const sweep = (now: number) => {
    if (windows.size < maxKeys) return;
    for (const [key, entry] of windows) if (entry.resetAt <= now) windows.delete(key);
  };
  return {
    async hit(key, windowMs, now, cost = 1) {
      sweep(now);
      let entry = windows.get(key);
      if (!entry || entry.resetAt <= now) {
        entry = { count: 0, resetAt: now + windowMs };
        windows.set(key, entry);
      }
      entry.count += cost;
      return { ...entry };
    },
    async reset(key) {
      windows.delete(key);
    },
  };
}

export interface RateLimits {
  /** Login and register requests per client address. Loose: a team behind one NAT must not meet it. */
  perIp: { max: number; windowMs: number };
  /** Failed logins per email. Strict: it is what stops password guessing. */
  failedLoginsPerEmail: { max: number; windowMs: number };
}

export const DEFAULT_RATE_LIMITS: RateLimits = {
  perIp: { max: 30, windowMs: 60_000 },
  failedLoginsPerEmail: { max: 10, windowMs: 15 * 60_000 },
};
