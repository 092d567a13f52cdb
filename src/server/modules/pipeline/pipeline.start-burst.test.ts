import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '@/server/testing/test-app.js';
import { LONG_TEST_MS, newTask, startRun, statusOf } from './testing/run-kit.js';

/** Counts worktree setups in progress, and whether each run's start had answered before its own began. */
const setups = vi.hoisted(() => ({ active: 0, peak: 0, answered: new Set<string>(), early: [] as string[] }));

vi.mock('../workspace/worktree.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../workspace/worktree.js')>();
  return {
    ...original,
    createRunWorktree: async (opts: Parameters<typeof original.createRunWorktree>[0]) => {
      const runId = opts.worktreePath.split(/[\\/]/).at(-1)!;
      if (!setups.answered.has(runId)) setups.early.push(runId);
      setups.active += 1;
      setups.peak = Math.max(setups.peak, setups.active);
      try {
        return await original.createRunWorktree(opts);
      } finally {
        setups.active -= 1;
      }
    },
  };
});

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('start-pipeline under a burst', () => {
  it(
    'answers before its run does anything, and sets up at most two worktrees at once',
    async () => {
      const tasks = await Promise.all(
        Array.from({ length: 8 }, (_, i) => newTask(t, { title: `Burst ${i}` })),
      );
      await Promise.all(
        tasks.map(async ({ client, taskId }) => {
          const res = await startRun(client, taskId);
          expect(res.status).toBe(202);
          setups.answered.add(res.body.runId);
        }),
      );
      await t.deps.orchestrator.idle();
      for (const { client, taskId } of tasks) expect((await statusOf(client, taskId)).status).toBe('passed');
      expect(setups.early).toEqual([]);
      expect(setups.peak).toBe(2);
    },
    LONG_TEST_MS,
  );
});
