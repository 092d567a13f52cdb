// The lock stores called directly (no HTTP) by the coordination part of `npm run bench`: the p99 of
// the store itself, beside the server's (bench/coordination.ts).
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createMemoryLockStore } from '../src/server/modules/coordination/memory-lock-store.js';
import { createRedisLockStore } from '../src/server/modules/coordination/redis-lock-store.js';
import {
  type CoordinationConfig,
  filesOf,
  STORE_OPS,
  type StoreKind,
  type StoreOp,
} from './coordination-config.js';
import { type LatencySummary, summarize } from './lib/stats.js';

export type StoreDirectResult =
  | { status: 'ok'; store: StoreKind; ops: Record<StoreOp, LatencySummary>; all: LatencySummary }
  | { status: 'skipped'; store: StoreKind; reason: string };

/**
 * The lock store called directly in this process, as the server calls it for each request: 50 agents
 * at once, each reading its files and their neighbours, taking them (WRITING) and releasing them.
 */
export async function benchStoreDirect(
  store: StoreKind,
  config: CoordinationConfig,
): Promise<StoreDirectResult> {
  if (store === 'redis' && !config.redisUrl)
    return { status: 'skipped', store, reason: 'REDIS_URL is not set' };
  const locks =
    store === 'redis' && config.redisUrl
      ? createRedisLockStore(config.redisUrl, `autocoder:bench:${randomUUID()}:`)
      : createMemoryLockStore();
  const scope = { projectId: randomUUID(), branch: 'main' };
  const samples = new Map<StoreOp, number[]>(STORE_OPS.map((op) => [op, []]));
  const timed = async <T>(op: StoreOp, run: () => Promise<T>) => {
    const started = performance.now();
    const value = await run();
    samples.get(op)?.push(performance.now() - started);
    return value;
  };
  try {
    const cycleOf = async (i: number, record: boolean) => {
      const files = filesOf(config, i);
      const holder = { id: `agent-${i}`, name: `Agent ${i}` };
      const around = [...files, `src/agents/a${i}/f0.ts`];
      const run = record ? timed : <T>(_op: StoreOp, fn: () => Promise<T>) => fn();
      await run('read', () => locks.read(scope, around, Date.now()));
      await run('acquire', () =>
        locks.acquire(scope, {
          holder,
          paths: files,
          status: 'WRITING',
          message: `Agent ${i} edits its module.`,
          agentHead: null,
          now: Date.now(),
          ttlMs: 300_000,
        }),
      );
      await run('release', () => locks.release(scope, holder.id, files, Date.now()));
    };
    await Promise.all(Array.from({ length: config.agents }, (_, i) => cycleOf(i, false)));
    await Promise.all(
      Array.from({ length: config.agents }, async (_, i) => {
        for (let c = 0; c < config.storeCycles; c++) await cycleOf(i, true);
      }),
    );
  } finally {
    await locks.close();
  }
  const ops = Object.fromEntries(STORE_OPS.map((op) => [op, summarize(samples.get(op) ?? [])])) as Record<
    StoreOp,
    LatencySummary
  >;
  const all = summarize(STORE_OPS.flatMap((op) => samples.get(op) ?? []));
  console.log(
    `  ${store === 'memory' ? 'in-process' : 'Redis'} store, direct: ${STORE_OPS.map((op) => `${op} p50 ${ops[op].p50} / p99 ${ops[op].p99} ms`).join('; ')}`,
  );
  return { status: 'ok', store, ops, all };
}
