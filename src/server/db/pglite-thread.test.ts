import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LONG_TEST_MS, newTask, runToEnd, taskEvents } from '../modules/pipeline/testing/run-kit.js';
import { createTestApp, signedInClient, type TestApp } from '../testing/test-app.js';
import { openDatabase } from './client.js';

/** The app over PGlite in a worker thread, as `npm start` runs it. */
let dir: string;
let t: TestApp;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'autocoder-pglite-worker-'));
  t = await createTestApp({ database: await openDatabase({ dataDir: path.join(dir, 'db'), worker: true }) });
});
afterAll(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

describe('PGlite in a worker thread', () => {
  it(
    'serves the whole app: sign-up, a duplicate refused, a pipeline run and its events',
    async () => {
      const setup = await newTask(t);
      const email = `twice-${Date.now()}@example.com`;
      await signedInClient(t.app, email);
      // A unique violation crosses the thread with its code: 409, not 500.
      const duplicate = await signedInClient(t.app, email).catch((error: Error) => error);
      expect(String(duplicate)).toContain('409');
      const run = await runToEnd(t, setup.client, setup.taskId);
      expect(run.status).toBe('passed');
      const events = await taskEvents(t, setup.taskId);
      expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
      expect(events.at(-1)?.type).toBe('pipeline-complete');
    },
    LONG_TEST_MS,
  );

  it('keeps the event loop free while a long query runs', async () => {
    const ticks: number[] = [];
    const timer = setInterval(() => ticks.push(performance.now()), 5);
    const started = performance.now();
    await t.database.db.execute(sql`select count(*) from generate_series(1, 3000000)`);
    const ended = performance.now();
    const took = ended - started;
    clearInterval(timer);
    // From the start to the end, the longest stretch without a timer tick.
    const marks = [started, ...ticks.filter((at) => at > started), ended];
    const gaps = marks.slice(1).map((at, i) => at - (marks[i] as number));
    expect(took).toBeGreaterThan(100);
    expect(Math.max(...gaps)).toBeLessThan(took / 2);
  });
});
