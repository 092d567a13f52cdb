import { afterEach, describe, expect, it } from 'vitest';
import { LOCK_STORES } from '@/server/testing/lock-stores.js';
import type { AcquireRequest, LockHolder, LockScope, LockStore } from './lock-store.js';

const TTL = 300_000;
const T0 = 1_700_000_000_000;
const scope: LockScope = { projectId: '7b0f3c2e-0000-4000-8000-000000000001', branch: 'main' };
const alice: LockHolder = { id: 'agent-alice', name: 'Alice' };
const bob: LockHolder = { id: 'agent-bob', name: 'Bob' };

const request = (
  holder: LockHolder,
  paths: string[],
  over: Partial<AcquireRequest> = {},
): AcquireRequest => ({
  holder,
  paths,
  status: 'WRITING',
  message: `${holder.name} refactors the session handling`,
  agentHead: 'abc1234',
  now: T0,
  ttlMs: TTL,
  ...over,
});

const holdersOf = async (store: LockStore, path: string, now = T0) =>
  (await store.read(scope, [path], now)).map((l) => `${l.holder.id}:${l.status}`).sort();

/** The one contract both lock stores keep (issue 9, "The rules" → Locks). */
describe.each(LOCK_STORES)('%s lock store', (_name, available, makeStore) => {
  let store: LockStore;
  afterEach(async () => {
    await store?.close();
  });
  const fresh = () => {
    store = makeStore();
    return store;
  };

  it.skipIf(!available)('gives WRITING to one holder only, and names the holder in the refusal', async () => {
    const s = fresh();
    expect(await s.acquire(scope, request(alice, ['src/auth.ts']))).toEqual({ ok: true });
    const refused = await s.acquire(scope, request(bob, ['src/auth.ts'], { message: 'Bob wants it' }));
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.conflicts).toEqual([
      {
        path: 'src/auth.ts',
        holder: alice,
        status: 'WRITING',
        message: 'Alice refactors the session handling',
        agentHead: 'abc1234',
        timestamp: T0,
        expiresAt: T0 + TTL,
      },
    ]);
    expect(refused.lost).toEqual([]);
    expect(await holdersOf(s, 'src/auth.ts')).toEqual(['agent-alice:WRITING']);
  });

  it.skipIf(!available)('shares READING, which blocks no writer and is never blocked', async () => {
    const s = fresh();
    expect((await s.acquire(scope, request(alice, ['a.ts'], { status: 'READING' }))).ok).toBe(true);
    expect((await s.acquire(scope, request(bob, ['a.ts'], { status: 'READING' }))).ok).toBe(true);
    expect((await s.acquire(scope, request(bob, ['a.ts'], { status: 'WRITING' }))).ok).toBe(true);
    expect((await s.acquire(scope, request(alice, ['a.ts'], { status: 'READING' }))).ok).toBe(true);
    expect(await holdersOf(s, 'a.ts')).toEqual(['agent-alice:READING', 'agent-bob:WRITING']);
    // …but a second writer still waits.
    expect((await s.acquire(scope, request(alice, ['a.ts']))).ok).toBe(false);
  });

  it.skipIf(!available)('takes all files of a request or none', async () => {
    const s = fresh();
    await s.acquire(scope, request(alice, ['b.ts']));
    const refused = await s.acquire(scope, request(bob, ['a.ts', 'b.ts', 'c.ts']));
    expect(refused.ok).toBe(false);
    expect(await s.read(scope, ['a.ts', 'c.ts'], T0)).toEqual([]);
    expect(await holdersOf(s, 'b.ts')).toEqual(['agent-alice:WRITING']);
  });

  it.skipIf(!available)(
    'refreshes the timestamp when the same lock is posted again, and nothing else',
    async () => {
      const s = fresh();
      await s.acquire(scope, request(alice, ['a.ts', 'b.ts']));
      await s.acquire(scope, request(alice, ['a.ts'], { now: T0 + 60_000 }));
      const locks = await s.read(scope, ['a.ts', 'b.ts'], T0 + 60_000);
      expect(locks.map((l) => [l.path, l.timestamp, l.expiresAt])).toEqual([
        ['a.ts', T0 + 60_000, T0 + 60_000 + TTL],
        ['b.ts', T0, T0 + TTL],
      ]);
      expect(await s.list(scope, T0 + 60_000)).toHaveLength(2);
    },
  );

  it.skipIf(!available)('lets the holder turn WRITING into READING and back', async () => {
    const s = fresh();
    await s.acquire(scope, request(alice, ['a.ts']));
    await s.acquire(scope, request(alice, ['a.ts'], { status: 'READING' }));
    expect(await holdersOf(s, 'a.ts')).toEqual(['agent-alice:READING']);
    expect((await s.acquire(scope, request(bob, ['a.ts']))).ok).toBe(true);
  });

  it.skipIf(!available)('expires a lock at its TTL, passively, and then lets another take it', async () => {
    const s = fresh();
    await s.acquire(scope, request(alice, ['a.ts']));
    expect(await holdersOf(s, 'a.ts', T0 + TTL - 1)).toEqual(['agent-alice:WRITING']);
    expect(await holdersOf(s, 'a.ts', T0 + TTL)).toEqual([]);
    expect((await s.acquire(scope, request(bob, ['a.ts'], { now: T0 + TTL - 1 }))).ok).toBe(false);
    expect((await s.acquire(scope, request(bob, ['a.ts'], { now: T0 + TTL }))).ok).toBe(true);
    // Alice lost it to expiry: the store remembers, until she takes or releases it again.
    expect(await s.lost(scope, alice.id, ['a.ts', 'b.ts'], T0 + TTL)).toEqual(['a.ts']);
    // Her refusal says so too, in the same step.
    const back = await s.acquire(scope, request(alice, ['b.ts', 'a.ts'], { now: T0 + TTL }));
    expect(back).toMatchObject({ ok: false, conflicts: [{ path: 'a.ts', holder: bob }], lost: ['a.ts'] });
    expect(await s.lost(scope, bob.id, ['a.ts'], T0 + TTL)).toEqual([]);
    await s.release(scope, alice.id, ['a.ts'], T0 + TTL);
    expect(await s.lost(scope, alice.id, ['a.ts'], T0 + TTL)).toEqual([]);
  });

  it.skipIf(!available)('releases only what the caller holds', async () => {
    const s = fresh();
    await s.acquire(scope, request(alice, ['a.ts', 'b.ts']));
    await s.acquire(scope, request(bob, ['b.ts'], { status: 'READING' }));
    expect(await s.release(scope, bob.id, ['a.ts'], T0)).toEqual([]);
    expect(await holdersOf(s, 'a.ts')).toEqual(['agent-alice:WRITING']);
    expect(await s.release(scope, alice.id, ['a.ts', 'b.ts', 'c.ts'], T0)).toEqual(['a.ts', 'b.ts']);
    expect(await s.list(scope, T0)).toMatchObject([{ path: 'b.ts', holder: bob, status: 'READING' }]);
  });

  it.skipIf(!available)(
    'releases unless a file the caller lost is written by another, then changes nothing',
    async () => {
      const s = fresh();
      await s.acquire(scope, request(alice, ['a.ts', 'b.ts']));
      await s.acquire(scope, request(bob, ['c.ts'], { status: 'READING' }));
      // Nothing lost: the same as release.
      expect(await s.releaseUnlessTaken(scope, alice.id, ['b.ts', 'c.ts'], T0)).toEqual({
        ok: true,
        released: ['b.ts'],
      });
      expect(await holdersOf(s, 'c.ts')).toEqual(['agent-bob:READING']);

      // Alice's a.ts expires and Bob writes it: her release is refused with his lock, and nothing moves.
      const later = T0 + TTL;
      await s.acquire(scope, request(alice, ['d.ts'], { now: later - 1 }));
      await s.acquire(scope, request(bob, ['a.ts'], { now: later }));
      const refused = await s.releaseUnlessTaken(scope, alice.id, ['d.ts', 'a.ts', 'a.ts'], later);
      expect(refused).toMatchObject({ ok: false, taken: [{ path: 'a.ts', holder: bob, status: 'WRITING' }] });
      expect(await holdersOf(s, 'd.ts', later)).toEqual(['agent-alice:WRITING']);
      expect(await s.lost(scope, alice.id, ['a.ts'], later)).toEqual(['a.ts']);

      // Once Bob only reads it, her release goes through, and she no longer counts it as lost.
      await s.acquire(scope, request(bob, ['a.ts'], { now: later, status: 'READING' }));
      expect(await s.releaseUnlessTaken(scope, alice.id, ['d.ts', 'a.ts'], later)).toEqual({
        ok: true,
        released: ['d.ts'],
      });
      expect(await s.lost(scope, alice.id, ['a.ts'], later)).toEqual([]);
      expect(await holdersOf(s, 'a.ts', later)).toEqual(['agent-bob:READING']);
    },
  );

  it.skipIf(!available)(
    'refuses a release after the clean-up swept the lock and another took the file',
    async () => {
      const s = fresh();
      await s.acquire(scope, request(alice, ['a.ts']));
      await s.sweep(T0 + TTL);
      await s.acquire(scope, request(bob, ['a.ts'], { now: T0 + TTL }));
      expect(await s.acquire(scope, request(alice, ['a.ts'], { now: T0 + TTL }))).toMatchObject({
        ok: false,
        lost: ['a.ts'],
      });
      const refused = await s.releaseUnlessTaken(scope, alice.id, ['a.ts'], T0 + TTL);
      expect(refused).toMatchObject({ ok: false, taken: [{ path: 'a.ts', holder: bob }] });
      expect(await holdersOf(s, 'a.ts', T0 + TTL)).toEqual(['agent-bob:WRITING']);
      expect(await s.releaseUnlessTaken(scope, bob.id, ['a.ts'], T0 + TTL)).toEqual({
        ok: true,
        released: ['a.ts'],
      });
    },
  );

  it.skipIf(!available)('keeps projects and branches apart', async () => {
    const s = fresh();
    const other = { ...scope, branch: 'feature/x:y' };
    await s.acquire(scope, request(alice, ['a.ts']));
    expect((await s.acquire(other, request(bob, ['a.ts']))).ok).toBe(true);
    expect((await s.acquire({ ...scope, projectId: 'another' }, request(bob, ['a.ts']))).ok).toBe(true);
    expect(await holdersOf(s, 'a.ts')).toEqual(['agent-alice:WRITING']);
  });

  it.skipIf(!available)('sweeps expired locks of every scope, once, and remembers them as lost', async () => {
    const s = fresh();
    const other = { ...scope, branch: 'dev' };
    await s.acquire(scope, request(alice, ['a.ts', 'b.ts']));
    await s.acquire(other, request(bob, ['a.ts'], { now: T0 + 10_000 }));
    expect(await s.sweep(T0 + TTL - 1)).toEqual([]);
    const swept = await s.sweep(T0 + TTL);
    expect(swept.map((e) => [e.scope.branch, e.lock.path, e.lock.holder.id]).sort()).toEqual([
      ['main', 'a.ts', 'agent-alice'],
      ['main', 'b.ts', 'agent-alice'],
    ]);
    expect(swept[0]?.lock.message).toBe('Alice refactors the session handling');
    expect(await s.sweep(T0 + TTL)).toEqual([]);
    expect(await s.list(scope, T0)).toEqual([]);
    expect(await s.list(other, T0 + TTL)).toHaveLength(1);
    expect(await s.lost(scope, alice.id, ['a.ts', 'b.ts'], T0 + TTL)).toEqual(['a.ts', 'b.ts']);
  });

  it.skipIf(!available)('keeps paths with spaces, unicode and colons intact', async () => {
    const s = fresh();
    const paths = ['docs/read me.md', 'src/ünï/çødé.ts', 'a:b/c.ts'];
    await s.acquire(scope, request(alice, paths, { message: 'Ünïcode “quotes” and \\ backslashes' }));
    const locks = await s.read(scope, paths, T0);
    expect(locks.map((l) => l.path)).toEqual(paths);
    expect(locks[0]?.message).toBe('Ünïcode “quotes” and \\ backslashes');
  });
});
