import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { PipelineEvent } from '@/contracts/pipeline.js';
import { createLogger } from '@/server/lib/logger.js';
import { locksForGraph } from './lock-overlay.js';
import { startLockSweeper } from './lock-sweeper.js';
import { createMemoryLockStore } from './memory-lock-store.js';

const scope = { projectId: 'c0ffee00-0000-4000-8000-000000000001', branch: 'main' };

describe('the lock clean-up', () => {
  it('runs on its interval, deletes expired locks and broadcasts one lock-expired per holder', async () => {
    const locks = createMemoryLockStore();
    let now = 1_000_000;
    const appended: { stream: string; event: PipelineEvent }[] = [];
    const events = {
      append: async (stream: string, event: PipelineEvent) => {
        appended.push({ stream, event });
        return { ...event, id: appended.length } as never;
      },
    };
    const holder = { id: 'agent-1', name: 'Agent One' };
    await locks.acquire(scope, {
      holder,
      paths: ['a.ts', 'b.ts'],
      status: 'WRITING',
      message: 'Agent One edits a and b',
      agentHead: null,
      now,
      ttlMs: 1000,
    });
    const stop = startLockSweeper({ locks, events, logger: createLogger('silent'), now: () => now }, 10);
    try {
      await sleep(40);
      expect(appended).toEqual([]);
      now += 1000;
      for (let i = 0; i < 100 && appended.length === 0; i++) await sleep(10);
      expect(appended).toEqual([
        {
          stream: `project:${scope.projectId}`,
          event: {
            type: 'lock-expired',
            data: {
              branch: 'main',
              agent: holder,
              files: ['a.ts', 'b.ts'],
              message: 'Agent One edits a and b',
              timestamp: now,
            },
          },
        },
      ]);
      expect(await locks.sweep(now)).toEqual([]);
    } finally {
      stop();
    }
  });
});

describe('the graph overlay', () => {
  it('shows one lock per file: the writer, else the latest reader', async () => {
    const locks = createMemoryLockStore();
    const base = { message: 'm', agentHead: null, ttlMs: 60_000 };
    await locks.acquire(scope, {
      ...base,
      holder: { id: 'r1', name: 'R1' },
      paths: ['a.ts', 'b.ts'],
      status: 'READING',
      now: 1,
    });
    await locks.acquire(scope, {
      ...base,
      holder: { id: 'r2', name: 'R2' },
      paths: ['b.ts'],
      status: 'READING',
      now: 2,
    });
    await locks.acquire(scope, {
      ...base,
      holder: { id: 'w', name: 'W' },
      paths: ['a.ts'],
      status: 'WRITING',
      now: 3,
      message: 'W writes a',
    });
    expect(await locksForGraph(locks, () => 10)(scope.projectId, 'main')).toEqual({
      'a.ts': { user: 'w', user_name: 'W', status: 'WRITING', message: 'W writes a' },
      'b.ts': { user: 'r2', user_name: 'R2', status: 'READING', message: 'm' },
    });
    expect(await locksForGraph(locks, () => 10)(scope.projectId, 'other')).toEqual({});
  });
});
