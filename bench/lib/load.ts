import { performance } from 'node:perf_hooks';
import { processCpuMs } from './common.js';
import { type LatencySummary, round, summarize } from './stats.js';

export interface ScenarioOptions {
  name: string;
  /** What is requested, for the table (e.g. "GET /api/tasks?projectId=…"). */
  label: string;
  /** Requests to time (the scenario stops earlier at the time cap). */
  requests: number;
  /** Clients issuing requests at once, each waiting for its answer before the next (closed loop). */
  concurrency: number;
  timeCapMs: number;
  /** Untimed requests before the timed ones (JIT, caches, connections). */
  warmup: number;
  /** The status a successful answer has. */
  expect: number;
  /** Sends request number `index` as client `worker` and answers the status. */
  send: (worker: number, index: number) => Promise<number>;
  /** The server's pid, to report the CPU it used (Linux /proc only). */
  serverPid?: number | undefined;
}

export interface ScenarioResult {
  name: string;
  label: string;
  concurrency: number;
  requested: number;
  /** Requests answered with the expected status: the only ones in `latency`. */
  ok: number;
  /** 429 answers, counted apart and never in `latency`. */
  rateLimited: number;
  /** Other statuses and transport errors. */
  errors: number;
  errorKinds: Record<string, number>;
  /** True when the time cap ended the scenario before `requested` requests were sent. */
  capped: boolean;
  durationMs: number;
  /** Successful requests per second of wall time. */
  throughput: number;
  latency: LatencySummary;
  /** CPU the server process used during the timed part, in % of one core (null when unknown). */
  serverCpuPercent: number | null;
  /** CPU this load generator used during the timed part, in % of one core. */
  benchCpuPercent: number;
}

function errorKind(error: unknown): string {
  if (error && typeof error === 'object' && 'code' in error && typeof error.code === 'string')
    return error.code;
  return error instanceof Error ? error.message.slice(0, 80) : String(error);
}

/** Runs `count` requests over `concurrency` closed-loop workers until done or past the deadline. */
async function drive(
  count: number,
  concurrency: number,
  deadline: number,
  send: (worker: number, index: number) => Promise<void>,
): Promise<boolean> {
  let next = 0;
  let capped = false;
  const worker = async (id: number) => {
    while (next < count) {
      if (performance.now() > deadline) {
        capped = true;
        return;
      }
      const index = next;
      next += 1;
      await send(id, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(count, 1)) }, (_, id) => worker(id)));
  return capped;
}

export async function runScenario(options: ScenarioOptions): Promise<ScenarioResult> {
  const warmupDeadline = performance.now() + options.timeCapMs;
  await drive(options.warmup, options.concurrency, warmupDeadline, async (worker, index) => {
    try {
      await options.send(worker, index);
    } catch {
      // warm-up answers are not counted
    }
  });

  const samples: number[] = [];
  const errorKinds: Record<string, number> = {};
  let rateLimited = 0;
  let errors = 0;
  const countError = (kind: string) => {
    errors += 1;
    errorKinds[kind] = (errorKinds[kind] ?? 0) + 1;
  };

  const serverCpuBefore = processCpuMs(options.serverPid);
  const benchCpuBefore = process.cpuUsage();
  const started = performance.now();
  const capped = await drive(
    options.requests,
    options.concurrency,
    started + options.timeCapMs,
    async (worker, index) => {
      const t0 = performance.now();
      let status: number;
      try {
        status = await options.send(worker, options.warmup + index);
      } catch (error) {
        countError(errorKind(error));
        return;
      }
      const elapsed = performance.now() - t0;
      if (status === options.expect) samples.push(elapsed);
      else if (status === 429) rateLimited += 1;
      else countError(`HTTP ${status}`);
    },
  );
  const durationMs = performance.now() - started;
  const benchCpu = process.cpuUsage(benchCpuBefore);
  const serverCpuAfter = processCpuMs(options.serverPid);

  return {
    name: options.name,
    label: options.label,
    concurrency: options.concurrency,
    requested: options.requests,
    ok: samples.length,
    rateLimited,
    errors,
    errorKinds,
    capped,
    durationMs: round(durationMs),
    throughput: round(samples.length / (durationMs / 1000), 1),
    latency: summarize(samples),
    serverCpuPercent:
      serverCpuBefore === null || serverCpuAfter === null
        ? null
        : round(((serverCpuAfter - serverCpuBefore) / durationMs) * 100, 0),
    benchCpuPercent: round(((benchCpu.user + benchCpu.system) / 1000 / durationMs) * 100, 0),
  };
}
