import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS, type RateLimitStore } from '@/server/lib/rate-limit.js';
import { closeRateLimitStores, RATE_LIMIT_STORES } from '@/server/testing/rate-limit-stores.js';
import { createTestApp, type TestApp, TestClient } from '@/server/testing/test-app.js';
import { guardedAddress } from './login-guard.js';

/*
 * Over the real app, with both stores and the app's movable clock: addresses are told apart by
 * X-Forwarded-For behind a trusted proxy. The defaults hold but for the 30 requests per minute per
 * address, raised so that only the login guard answers here (auth.test.ts covers that limit).
 */

afterAll(closeRateLimitStores);

const PASSWORD = 'right-password';

/** The app with its clock stopped (no time passes while passwords are hashed): only `advance` moves it. */
async function appWith(store: RateLimitStore): Promise<TestApp> {
  let now = Date.now();
  const t = await createTestApp({
    deps: { trustProxy: true, now: () => now },
    runtime: {
      rateLimitStore: store,
      rateLimits: { ...DEFAULT_RATE_LIMITS, perIp: { max: 100_000, windowMs: 60_000 } },
    },
  });
  return {
    ...t,
    advance: (ms) => {
      now += ms;
    },
  };
}

function signIn(t: TestApp, address: string, email: string, password: string) {
  return new TestClient(t.app).request(
    'POST',
    '/api/auth/login',
    { email, password },
    {
      'x-forwarded-for': address,
    },
  );
}

async function registered(t: TestApp, email: string) {
  const res = await new TestClient(t.app).request(
    'POST',
    '/api/auth/register',
    { email, password: PASSWORD },
    { 'x-forwarded-for': '198.51.100.250' },
  );
  expect(res.status).toBe(201);
  return email;
}

describe('guardedAddress', () => {
  it('counts an IPv6 client by its /64 and an IPv4 one by its address', () => {
    expect(guardedAddress('2001:db8:1:2::a')).toBe('2001:db8:1:2::/64');
    expect(guardedAddress('2001:0db8:0001:0002:ffff:1:2:3')).toBe('2001:db8:1:2::/64');
    expect(guardedAddress('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(guardedAddress('[fe80::1%eth0]')).toBe('fe80:0:0:0::/64');
    expect(guardedAddress('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(guardedAddress('203.0.113.9')).toBe('203.0.113.9');
    expect(guardedAddress('in-process')).toBe('in-process');
  });
});

const retryAfter = (res: { headers: Headers }) => Number(res.headers.get('retry-after'));

describe.each(RATE_LIMIT_STORES)('login guard, %s store', (_name, available, makeStore) => {
  it.skipIf(!available)(
    'slows the address that sends wrong passwords, never the owner from another address',
    async () => {
      const t = await appWith(makeStore());
      try {
        const alice = await registered(t, 'alice@example.com');
        const A = '203.0.113.1';
        const B = '203.0.113.2';
        // Five wrong passwords from A are answered at once; then each waits twice as long as the last.
        const waits: number[] = [];
        let wrong = 0;
        while (wrong < 12) {
          const res = await signIn(t, A, alice, `guess-${wrong}`);
          if (res.status === 401) {
            wrong += 1;
            continue;
          }
          expect(res.status).toBe(429);
          expect(res.body).toMatchObject({ error: 'RATE_LIMITED' });
          waits.push(retryAfter(res));
          // The right password from A waits as well: A is slowed, whatever it sends.
          expect((await signIn(t, A, alice, PASSWORD)).status).toBe(429);
          // One millisecond short of the wait is still refused.
          t.advance(retryAfter(res) * 1000 - 1);
          expect((await signIn(t, A, alice, `early-${wrong}`)).status).toBe(429);
          t.advance(1);
        }
        expect(waits).toEqual([30, 60, 120, 240, 480, 900, 900]);
        // A is refused now…
        expect((await signIn(t, A, alice, `guess-${wrong}`)).status).toBe(429);
        // …and alice, from B, signs in at once.
        const owner = await signIn(t, B, alice, PASSWORD);
        expect(owner.status).toBe(200);
        expect(owner.body).toMatchObject({ user: { email: alice } });
        // Other accounts, from A too, are not affected.
        const bob = await registered(t, 'bob@example.com');
        expect((await signIn(t, A, bob, PASSWORD)).status).toBe(200);
      } finally {
        await t.close();
      }
    },
  );

  it.skipIf(!available)("forgets an address's failures for an account when it signs in", async () => {
    const t = await appWith(makeStore());
    try {
      const carol = await registered(t, 'carol@example.com');
      const A = '203.0.113.10';
      for (let i = 0; i < 4; i++) expect((await signIn(t, A, carol, `typo-${i}`)).status).toBe(401);
      expect((await signIn(t, A, carol, PASSWORD)).status).toBe(200);
      // Five more are free again, not one.
      for (let i = 0; i < 5; i++) expect((await signIn(t, A, carol, `typo-again-${i}`)).status).toBe(401);
      const refused = await signIn(t, A, carol, 'typo-once-more');
      expect(refused.status).toBe(429);
      expect(retryAfter(refused)).toBe(30);
    } finally {
      await t.close();
    }
  });

  it.skipIf(!available)('counts every address of one IPv6 /64 as one address', async () => {
    const t = await appWith(makeStore());
    try {
      const gina = await registered(t, 'gina@example.com');
      for (let i = 0; i < 5; i++) {
        expect((await signIn(t, `2001:db8:7:7::${i + 1}`, gina, `guess-${i}`)).status).toBe(401);
      }
      expect((await signIn(t, '2001:db8:7:7:ffff::99', gina, 'guess-5')).status).toBe(429);
      expect((await signIn(t, '2001:db8:7:8::1', gina, PASSWORD)).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it.skipIf(!available)('refuses an address that tries many accounts, for every account', async () => {
    const t = await appWith(makeStore());
    try {
      const dave = await registered(t, 'dave@example.com');
      const A = '203.0.113.20';
      // Thirty failed logins across thirty accounts (known or not: they count alike).
      for (let i = 0; i < 30; i++) {
        expect((await signIn(t, A, `user${i}@example.com`, 'Winter2024!')).status, `attempt ${i}`).toBe(401);
      }
      const refused = await signIn(t, A, 'user30@example.com', 'Winter2024!');
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ error: 'RATE_LIMITED' });
      expect(retryAfter(refused)).toBeGreaterThan(0);
      expect(retryAfter(refused)).toBeLessThanOrEqual(15 * 60);
      expect((await signIn(t, A, dave, PASSWORD)).status).toBe(429);
      // Another address is not affected, and A may try again once its window ends.
      expect((await signIn(t, '203.0.113.21', dave, PASSWORD)).status).toBe(200);
      t.advance(15 * 60_000);
      expect((await signIn(t, A, dave, PASSWORD)).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it.skipIf(!available)(
    'under guessing from many addresses, slows those that failed for the account, not a new one',
    async () => {
      const t = await appWith(makeStore());
      try {
        const erin = await registered(t, 'erin@example.com');
        const guesser = (i: number) => `192.0.2.${i}`;
        // Twelve addresses, one guess each: a new address is never delayed.
        for (let i = 1; i <= 12; i++)
          expect((await signIn(t, guesser(i), erin, `guess-${i}`)).status).toBe(401);
        // The account has had 12 failures: an address that failed for it waits 5 s between attempts…
        const again = await signIn(t, guesser(1), erin, 'guess-again');
        expect(again.status).toBe(429);
        expect(retryAfter(again)).toBe(5);
        // …the owner, from an address that has not, signs in at once…
        expect((await signIn(t, '198.51.100.7', erin, PASSWORD)).status).toBe(200);
        // …and the guesser may go on once the gap has passed.
        t.advance(5_000);
        expect((await signIn(t, guesser(1), erin, 'guess-again')).status).toBe(401);
      } finally {
        await t.close();
      }
    },
  );

  it.skipIf(!available)(
    'counts 20 parallel wrong passwords before checking them: exactly 5 get 401',
    async () => {
      const t = await appWith(makeStore());
      try {
        const frank = await registered(t, 'frank@example.com');
        const statuses = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            signIn(t, '203.0.113.30', frank, `guess-${i}`).then((r) => r.status),
          ),
        );
        expect(statuses.filter((s) => s === 401)).toHaveLength(5);
        expect(statuses.filter((s) => s === 429)).toHaveLength(15);
        expect((await signIn(t, '203.0.113.31', frank, PASSWORD)).status).toBe(200);
      } finally {
        await t.close();
      }
    },
  );
});
