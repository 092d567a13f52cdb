import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LockStatus } from '@/contracts/coordination.js';
import { LOCK_STORES } from '@/server/testing/lock-stores.js';
import type { LockEntry, LockScope, LockStore } from './lock-store.js';

/*
 * Model-based tests (issue 9, item 7): random programs of many agents taking overlapping multi-file
 * locks, alone and all at once, releasing (their own and others' files), and a clock moving around
 * the TTL. After every step the store must equal a plain model, and hold the invariants:
 * a file never has two WRITING holders, no request is half held, locks expire at their TTL,
 * a release by someone else changes nothing.
 */

const TTL = 300_000;
const T0 = 1_700_000_000_000;
const AGENTS = ['a0', 'a1', 'a2', 'a3', 'a4', 'a5'];
const FILES = ['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/d.ts', 'lib/e.py', 'f.md'];

interface Req {
  agent: string;
  files: string[];
  status: LockStatus;
}
type Op =
  | ({ kind: 'acquire' } & Req)
  | { kind: 'together'; requests: Req[] }
  | { kind: 'release'; agent: string; files: string[] }
  | { kind: 'advance'; ms: number }
  | { kind: 'sweep' };

const files = fc.uniqueArray(fc.constantFrom(...FILES), { minLength: 1, maxLength: 4 });
const req = fc.record({
  agent: fc.constantFrom(...AGENTS),
  files,
  status: fc.constantFrom<LockStatus>('READING', 'WRITING', 'WRITING'),
});
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: req.map((r) => ({ kind: 'acquire' as const, ...r })) },
  {
    weight: 2,
    arbitrary: fc
      .uniqueArray(req, { minLength: 2, maxLength: AGENTS.length, selector: (r) => r.agent })
      .map((requests) => ({ kind: 'together' as const, requests })),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({ agent: fc.constantFrom(...AGENTS), files })
      .map((r) => ({ kind: 'release' as const, ...r })),
  },
  {
    weight: 2,
    arbitrary: fc
      .oneof(fc.constantFrom(TTL - 1, TTL, 1, 0), fc.integer({ min: 0, max: TTL }))
      .map((ms) => ({ kind: 'advance' as const, ms })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'sweep' as const }) },
);

/** The model: per file, per holder, a status and an expiry. */
type Model = Map<string, Map<string, { status: LockStatus; timestamp: number; expiresAt: number }>>;

const liveOf = (model: Model, now: number) =>
  [...model]
    .flatMap(([path, holders]) =>
      [...holders]
        .filter(([, l]) => l.expiresAt > now)
        .map(([id, l]) => `${path} ${id} ${l.status} ${l.timestamp} ${l.expiresAt}`),
    )
    .sort();

const viewOf = (locks: LockEntry[]) =>
  locks.map((l) => `${l.path} ${l.holder.id} ${l.status} ${l.timestamp} ${l.expiresAt}`).sort();

const conflictIn = (model: Model, r: Req, now: number) =>
  r.status === 'WRITING' &&
  r.files.some((path) =>
    [...(model.get(path) ?? [])].some(
      ([id, l]) => id !== r.agent && l.status === 'WRITING' && l.expiresAt > now,
    ),
  );

const take = (model: Model, r: Req, now: number) => {
  for (const path of r.files) {
    const holders = model.get(path) ?? new Map();
    holders.set(r.agent, { status: r.status, timestamp: now, expiresAt: now + TTL });
    model.set(path, holders);
  }
};

function assertInvariants(locks: LockEntry[]) {
  const writers = new Map<string, string>();
  for (const lock of locks) {
    if (lock.status !== 'WRITING') continue;
    expect(writers.get(lock.path), `two WRITING holders of ${lock.path}`).toBeUndefined();
    writers.set(lock.path, lock.holder.id);
  }
}

async function run(store: LockStore, ops: Op[]) {
  const scope: LockScope = { projectId: crypto.randomUUID(), branch: 'main' };
  const model: Model = new Map();
  let now = T0;
  const acquire = (r: Req) =>
    store.acquire(scope, {
      holder: { id: r.agent, name: r.agent.toUpperCase() },
      paths: r.files,
      status: r.status,
      message: `${r.agent} works on ${r.files.join(', ')}`,
      agentHead: null,
      now,
      ttlMs: TTL,
    });

  for (const step of ops) {
    const before = viewOf(await store.list(scope, now));
    switch (step.kind) {
      case 'acquire': {
        const expected = !conflictIn(model, step, now);
        const result = await acquire(step);
        expect(result.ok).toBe(expected);
        if (result.ok) take(model, step, now);
        else expect(result.conflicts.length).toBeGreaterThan(0);
        break;
      }
      case 'together': {
        const results = await Promise.all(step.requests.map(acquire));
        const after = await store.list(scope, now);
        assertInvariants(after);
        const mine = (r: Req) =>
          viewOf(after.filter((l) => l.holder.id === r.agent && r.files.includes(l.path)));
        const mineBefore = (r: Req) =>
          before.filter((line) => {
            const [path, id] = line.split(' ');
            return id === r.agent && r.files.includes(path ?? '');
          });
        step.requests.forEach((r, i) => {
          if (results[i]?.ok) {
            // Held in full: every file, with this request's status and time.
            expect(mine(r)).toEqual(
              r.files.map((p) => `${p} ${r.agent} ${r.status} ${now} ${now + TTL}`).sort(),
            );
            take(model, r, now);
          } else {
            // Held not at all: the agent's locks on those files are as they were, and a writer is in the way.
            expect(mine(r)).toEqual(mineBefore(r));
            expect(
              conflictIn(model, r, now) || step.requests.some((_other, j) => j !== i && results[j]?.ok),
            ).toBe(true);
          }
        });
        break;
      }
      case 'release': {
        const held = step.files.filter((p) => (model.get(p)?.get(step.agent)?.expiresAt ?? 0) > now);
        const released = await store.release(scope, step.agent, step.files, now);
        expect(released.sort()).toEqual(held.sort());
        for (const path of step.files) model.get(path)?.delete(step.agent);
        // Nobody else's lock moved.
        expect(viewOf(await store.list(scope, now))).toEqual(
          before.filter((l) => l.split(' ')[1] !== step.agent || !step.files.includes(l.split(' ')[0] ?? '')),
        );
        break;
      }
      case 'advance':
        now += step.ms;
        break;
      case 'sweep': {
        const swept = await store.sweep(now);
        const expected = [...model].flatMap(([path, holders]) =>
          [...holders].filter(([, l]) => l.expiresAt <= now).map(([id]) => `${path} ${id}`),
        );
        expect(
          swept
            .filter((e) => e.scope.projectId === scope.projectId)
            .map((e) => `${e.lock.path} ${e.lock.holder.id}`)
            .sort(),
        ).toEqual(expected.sort());
        for (const holders of model.values()) {
          for (const [id, l] of holders) if (l.expiresAt <= now) holders.delete(id);
        }
        break;
      }
    }
    const locks = await store.list(scope, now);
    assertInvariants(locks);
    expect(viewOf(locks)).toEqual(liveOf(model, now));
  }
}

describe.each(LOCK_STORES)('%s lock store, model-based', (_name, available, makeStore) => {
  it.skipIf(!available)(
    'agrees with the model under random programs of many agents',
    async () => {
      const store = makeStore();
      try {
        await fc.assert(
          fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 40 }), (ops) => run(store, ops)),
          { numRuns: 150 },
        );
      } finally {
        await store.close();
      }
    },
    60_000,
  );
});
