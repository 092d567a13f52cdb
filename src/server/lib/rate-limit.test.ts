import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { closeRateLimitStores, RATE_LIMIT_STORES } from '../testing/rate-limit-stores.js';
import { type BackoffAttempt, type BackoffRule, backoffDelay } from './rate-limit.js';

/*
 * One suite for both stores (in-process and Redis, which runs where REDIS_URL is set or the default
 * port answers). Every time is the clock handed in, in both: nothing here waits.
 */

afterAll(closeRateLimitStores);

const T0 = 1_700_000_000_000;
const RULE: BackoffRule = { free: 3, baseMs: 1_000, maxMs: 8_000, forgetMs: 60_000 };

describe('backoffDelay', () => {
  it('is free for the first failures, then doubles up to the cap, and at least the gap once failed', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 50, 5000].map((n) => backoffDelay(n, RULE))).toEqual([
      0, 0, 0, 1_000, 2_000, 4_000, 8_000, 8_000, 8_000, 8_000,
    ]);
    expect(backoffDelay(0, RULE, 5_000)).toBe(0);
    expect(backoffDelay(1, RULE, 5_000)).toBe(5_000);
    expect(backoffDelay(5, RULE, 5_000)).toBe(5_000);
    expect(backoffDelay(6, RULE, 5_000)).toBe(8_000);
  });
});

describe.each(RATE_LIMIT_STORES)('%s rate-limit store', (_kind, available, makeStore) => {
  it.skipIf(!available)('gives concurrent hits distinct counts, one each', async () => {
    const store = makeStore();
    const counts = await Promise.all(Array.from({ length: 50 }, () => store.hit('k', 60_000, T0)));
    expect(counts.map((c) => c.count).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
    for (const { resetAt } of counts) expect(resetAt).toBe(T0 + 60_000);
  });

  it.skipIf(!available)("ends a window by the app's clock, and starts again after a reset", async () => {
    const store = makeStore();
    expect(await store.hit('a', 60_000, T0)).toEqual({ count: 1, resetAt: T0 + 60_000 });
    expect(await store.hit('a', 60_000, T0 + 59_999)).toEqual({ count: 2, resetAt: T0 + 60_000 });
    expect(await store.hit('a', 60_000, T0 + 60_000)).toEqual({ count: 1, resetAt: T0 + 120_000 });
    await store.reset('a');
    expect((await store.hit('a', 60_000, T0 + 60_001)).count).toBe(1);
  });

  it.skipIf(!available)(
    'reads with a cost of 0 and gives back with a negative one, opening no window',
    async () => {
      const store = makeStore();
      expect((await store.hit('r', 60_000, T0, 0)).count).toBe(0);
      expect((await store.hit('r', 60_000, T0, -1)).count).toBe(0);
      // The window opens with the first real hit, not with the read.
      expect(await store.hit('r', 60_000, T0 + 10_000)).toEqual({ count: 1, resetAt: T0 + 70_000 });
      expect((await store.hit('r', 60_000, T0 + 10_000, 2)).count).toBe(3);
      expect((await store.hit('r', 60_000, T0 + 10_000, -1)).count).toBe(2);
      expect((await store.hit('r', 60_000, T0 + 10_000, 0)).count).toBe(2);
      expect((await store.hit('r', 60_000, T0 + 70_000, -1)).count).toBe(0);
    },
  );

  it.skipIf(!available)('admits exactly the free attempts of 20 made at once', async () => {
    const store = makeStore();
    const results = await Promise.all(Array.from({ length: 20 }, () => store.attempt('p', T0, RULE)));
    const allowed = results.filter((r) => r.allowed);
    expect(allowed.map((r) => r.allowed && r.failures).sort()).toEqual([1, 2, 3]);
    for (const r of results) if (!r.allowed) expect(r.retryAt).toBe(T0 + 1_000);
  });

  it.skipIf(!available)('agrees with a model of the backoff under random programs', async () => {
    type Op =
      | { kind: 'attempt'; key: string; gap: number }
      | { kind: 'reset'; key: string }
      | { kind: 'advance'; ms: number };
    const key = fc.constantFrom('x', 'y');
    const op: fc.Arbitrary<Op> = fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record({
          kind: fc.constant('attempt' as const),
          key,
          gap: fc.constantFrom(0, 0, 2_500),
        }),
      },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('reset' as const), key }) },
      {
        weight: 3,
        arbitrary: fc.record({
          kind: fc.constant('advance' as const),
          ms: fc.oneof(
            fc.constantFrom(1, 999, 1_000, 8_000, 59_999, 60_000),
            fc.integer({ min: 0, max: 70_000 }),
          ),
        }),
      },
    );
    const store = makeStore();
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 30 }), async (ops) => {
        const prefix = crypto.randomUUID();
        const model = new Map<string, { failures: number; last: number }>();
        let now = T0;
        for (const step of ops) {
          if (step.kind === 'advance') {
            now += step.ms;
            continue;
          }
          if (step.kind === 'reset') {
            await store.reset(prefix + step.key);
            model.delete(step.key);
            continue;
          }
          const known = model.get(step.key);
          const failures = known && now < known.last + RULE.forgetMs ? known.failures : 0;
          const retryAt = (known?.last ?? 0) + backoffDelay(failures, RULE, step.gap);
          const expected: BackoffAttempt =
            failures > 0 && now < retryAt
              ? { allowed: false, retryAt }
              : { allowed: true, failures: failures + 1 };
          if (expected.allowed) model.set(step.key, { failures: failures + 1, last: now });
          expect(await store.attempt(prefix + step.key, now, RULE, step.gap)).toEqual(expected);
        }
      }),
      { numRuns: 100 },
    );
  });
});
