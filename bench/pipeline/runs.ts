// The pipeline part's runs: every start at once, waiting for every end, letting the server settle.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PipelineRunDetail } from '../../src/contracts/pipeline.js';
import { firstLine } from '../lib/common.js';
import { int } from '../lib/format.js';
import type { BenchClient } from '../lib/http.js';
import type { TaskState } from './clients.js';
import type { PipelineConfig } from './config.js';
import { bump } from './util.js';

/** After a run's end is seen on one stream, how long its other clients get to see it too. */
const END_GRACE_MS = 5_000;
const FINAL_STATUSES = new Set(['passed', 'failed', 'cancelled', 'paused']);

export interface Metrics {
  database: { kind: string; statements: number; writes: number };
  events: { writes: number; persisted: number };
  runs: { active: number };
  process: { rssBytes: number; heapUsedBytes: number; uptimeSeconds: number };
}

export type RunStatus = (PipelineRunDetail & { runId: string }) | { status: 'none' };

export const readMetrics = (client: BenchClient) =>
  client.json<Metrics>('GET', '/api/metrics', undefined, 200);

export const readStatus = (task: TaskState) =>
  task.owner.json<RunStatus>('GET', `/api/pipeline/${task.id}/status`, undefined, 200);

/** Sends every start-pipeline at once; latencies of the 202s, and the other answers by kind. */
export async function startAll(tasks: readonly TaskState[], config: PipelineConfig) {
  const startLatencies: number[] = [];
  const startErrors: Record<string, number> = {};
  await Promise.all(
    tasks.map(async (task) => {
      const sent = performance.now();
      task.startSentAt = Date.now();
      try {
        const res = await task.owner.request('POST', `/api/tasks/${task.id}/start-pipeline`, {
          provider: 'simulator',
          ...(config.scenario ? { scenario: config.scenario } : {}),
        });
        task.startStatus = res.status;
        if (res.status === 202) startLatencies.push(performance.now() - sent);
        else {
          let code = '';
          try {
            code = (JSON.parse(res.body.toString('utf8')) as { error?: string }).error ?? '';
          } catch {
            // not JSON
          }
          bump(startErrors, `${res.status}${code ? ` ${code}` : ''}`);
        }
      } catch (error) {
        bump(startErrors, firstLine(error));
      }
    }),
  );
  const started = tasks.filter((task) => task.startStatus === 202);
  console.log(
    `  started ${started.length} of ${tasks.length} runs${
      Object.keys(startErrors).length ? ` (${JSON.stringify(startErrors)})` : ''
    }; waiting for them to end (cap ${config.timeCapMs / 1000} s)…`,
  );
  return { startLatencies, startErrors, started };
}

/**
 * Waits until every started run has ended and its clients have seen the end (or the grace has
 * passed). Ends come from the streams; every 5 s the tasks not yet ended are also asked for their
 * status, in case a stream died or a run stopped without telling. True when the time cap came first.
 */
export async function waitForEnds(
  started: readonly TaskState[],
  runsStartedAt: number,
  timeCapMs: number,
): Promise<boolean> {
  const deadline = runsStartedAt + timeCapMs;
  let lastPoll = Date.now();
  let lastReport = Date.now();
  for (;;) {
    const now = Date.now();
    const pending = started.filter((task) => task.endedAt === null);
    const lagging = started.filter(
      (task) =>
        task.endedAt !== null &&
        (task.endStatus === 'passed' || task.endStatus === 'failed') &&
        now - task.endedAt < END_GRACE_MS &&
        task.clients.some((client) => client.completeAt === null && !client.sse.closed),
    );
    if (pending.length === 0 && lagging.length === 0) return false;
    if (now > deadline) return true;
    if (now - lastReport >= 10_000) {
      lastReport = now;
      console.log(
        `    ${started.length - pending.length} of ${started.length} runs ended after ${int((now - runsStartedAt) / 1000)} s`,
      );
    }
    if (now - lastPoll >= 5_000 && pending.length > 0) {
      lastPoll = now;
      await Promise.all(
        pending.map(async (task) => {
          const status = await readStatus(task).catch(() => null);
          if (status && FINAL_STATUSES.has(status.status) && task.endedAt === null) {
            task.endedAt = Date.now();
            task.endStatus = status.status;
          }
        }),
      );
    }
    await sleep(50);
  }
}

/**
 * The metrics once the server has settled: no active run and the event log written (its batches
 * go every 200 ms), or after 10 s.
 */
export async function settledMetrics(client: BenchClient): Promise<Metrics> {
  let after = await readMetrics(client);
  const settleBy = performance.now() + 10_000;
  for (;;) {
    await sleep(300);
    const next = await readMetrics(client);
    const settled =
      next.runs.active === 0 &&
      next.events.persisted === after.events.persisted &&
      next.database.writes === after.database.writes;
    after = next;
    if (settled || performance.now() > settleBy) return after;
  }
}
