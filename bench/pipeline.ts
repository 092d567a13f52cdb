// The pipeline part of `npm run bench`: concurrent runs against the in-process simulator at full
// speed, watched by SSE clients. See bench/README.md ("Pipeline").
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { Health } from '../src/contracts/health.js';
import type { PipelineRunDetail } from '../src/contracts/pipeline.js';
import type { Task } from '../src/contracts/tasks.js';
import {
  type Aim,
  baseEnv,
  childrenCpuMs,
  cpuProfileArgs,
  firstLine,
  intEnv,
  processCpuMs,
  processRssBytes,
  RATE_LIMIT_ENV,
  schedStatMs,
  summarizeLog,
} from './lib/common.js';
import { int, ms, table } from './lib/format.js';
import { BenchClient, registerWithProject } from './lib/http.js';
import { redactUrl } from './lib/postgres.js';
import { freePort, makeTempDir, removeTempDir, spawnGroup, waitHealthy } from './lib/processes.js';
import { SseClient, type SseEvent } from './lib/sse-client.js';
import { type LatencySummary, round, summarize } from './lib/stats.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The server's limit on RUNNING pipelines per user (NFR-04-009): more starts answer 429 TOO_MANY_PIPELINES. */
const RUNS_PER_USER = 5;
const PASSWORD = 'correct horse battery staple';
/** After a run's end is seen on one stream, how long its other clients get to see it too. */
const END_GRACE_MS = 5_000;
/** /api/metrics answers only the operator's bearer token. */
const METRICS_TOKEN = randomBytes(24).toString('hex');

export const PIPELINE_AIMS = { deliveryP99Ms: 50, writesPer1kTokens: 20, startP99Ms: 50 };

export interface PipelineConfig {
  /** Runs started at once. */
  runs: number;
  /** SSE clients per task (runs × this = clients connected). */
  clientsPerTask: number;
  /** From the first start until every run must have ended. */
  timeCapMs: number;
  /** Simulator directives sent with every start (e.g. `chunk=12, coder-bytes=25000`). */
  scenario?: string;
  /** Extra environment for the server. */
  serverEnv?: Record<string, string>;
  /** How long the SSE clients may take to connect (default 30 s). */
  connectTimeoutMs?: number;
}

export function pipelineConfig(): PipelineConfig {
  return {
    runs: intEnv('BENCH_PIPELINE_RUNS', 50),
    clientsPerTask: intEnv('BENCH_PIPELINE_SSE_PER_TASK', 4),
    timeCapMs: intEnv('BENCH_PIPELINE_TIME_CAP_S', 120) * 1000,
  };
}

interface Metrics {
  database: { kind: string; statements: number; writes: number };
  events: { writes: number; persisted: number };
  runs: { active: number };
  process: { rssBytes: number; heapUsedBytes: number; uptimeSeconds: number };
}

type RunStatus = (PipelineRunDetail & { runId: string }) | { status: 'none' };

interface ClientState {
  sse: SseClient;
  ids: number[];
  /** Date.now() when this client received pipeline-complete. */
  completeAt: number | null;
}

interface TaskState {
  id: string;
  owner: BenchClient;
  clients: ClientState[];
  /** Date.now() when its start-pipeline request was sent. */
  startSentAt: number;
  startStatus: number;
  /** Date.now() when the first client saw the run end (pipeline-complete, or a paused/cancelled phase). */
  endedAt: number | null;
  /** How it ended, as the stream (or the status fallback) told. */
  endStatus: string | null;
}

export type PipelineDbResult =
  | {
      status: 'ok';
      database: 'pglite' | 'postgres';
      postgresUrl?: string;
      serverStartMs: number;
      setup: { users: number; tasks: number; sseClients: number; setupMs: number };
      /** 1/5/15-minute load averages when the runs started and when they had ended. */
      loadAverage: { start: number[]; end: number[] };
      runs: {
        requested: number;
        /** start-pipeline answered 202. */
        started: number;
        startErrors: Record<string, number>;
        /** Final statuses from GET /api/pipeline/:taskId/status (e.g. passed, failed, paused, running). */
        statuses: Record<string, number>;
        /** Runs that had not ended when the time cap came. */
        unfinished: number;
        capped: boolean;
        /** First start-pipeline sent → last pipeline-complete received. */
        spanMs: number;
        agentCalls: number;
      };
      /** POST /api/tasks/:id/start-pipeline, all runs at once: request sent → answer read. */
      startLatencyMs: LatencySummary;
      orchestrator: {
        /** Per run: (completedAt − startedAt) − Σ calls[].durationMs. */
        ownMsPerRun: LatencySummary;
        /** Per run: completedAt − startedAt. */
        runWallMs: LatencySummary;
        /** Per run: Σ calls[].durationMs (streaming from the provider). */
        providerMsPerRun: LatencySummary;
        /** Σ own ÷ Σ wall. */
        ownShare: number;
      };
      /** Per run, seen from the bench: start-pipeline sent → first client received pipeline-complete. */
      endToEndMs: LatencySummary;
      tokens: { output: number; input: number };
      /** INSERT/UPDATE/DELETE and all statements between the metrics before and after the runs. */
      dbWrites: {
        writes: number;
        statements: number;
        writesPer1kTokens: number | null;
        statementsPer1kTokens: number | null;
        writesPerRun: number | null;
        /** Writes other than the event log's INSERTs (run rows, task moves), per run. */
        otherWritesPerRun: number | null;
      };
      eventLog: { persisted: number; inserts: number; eventsPerInsert: number | null };
      delivery: {
        /** Date.now() at receipt − data.timestamp, every event with a timestamp, every client. */
        latencyMs: LatencySummary;
        byType: Record<string, LatencySummary>;
        /** Events received, all clients together. */
        delivered: number;
        /** Distinct events on the task streams (the longest client's count, summed over tasks). */
        distinct: number;
        /** Delivered events per second of the span. */
        perSecond: number;
        /** Tasks whose clients did not all receive the same ids. */
        idMismatches: number;
        /** Stored events of a run (GET /api/pipeline/runs/:id/events) some client never received. */
        missing: number;
        /** Ids out of order or repeated within one client's stream. */
        outOfOrder: number;
        /** Clients whose stream failed or was closed by the server. */
        streamErrors: number;
        streamErrorKinds: Record<string, number>;
      };
      memory: {
        /** VmRSS of the server process before the runs (after the setup). */
        idleRssBytes: number | null;
        /** Highest VmRSS sampled every 100 ms during the runs. */
        peakRssBytes: number | null;
        /** VmRSS once the runs had ended and the event log was written. */
        afterRssBytes: number | null;
        samples: number;
        /** process.memoryUsage() of the server, from /api/metrics after the runs. */
        metricsRssBytes: number;
        metricsHeapUsedBytes: number;
      };
      /** CPU the server process used during the runs, % of one core (PGlite runs inside it). */
      serverCpuPercent: number | null;
      /**
       * The server's main thread (its event loop) during the runs, in % of the wall time: running on
       * a CPU, and runnable but waiting for one (other processes on the machine had it).
       */
      serverMainThread: { runPercent: number; runQueueWaitPercent: number } | null;
      /** CPU of the server's reaped children (git) during the runs, % of one core. */
      serverChildrenCpuPercent: number | null;
      /** CPU this bench process (200 SSE readers) used during the runs, % of one core. */
      benchCpuPercent: number;
      /** This process's main thread: % of the wall time it waited for a CPU while runnable. */
      benchRunQueueWaitPercent: number | null;
      /** This process's event-loop delay during the runs: part of every delivery latency. */
      benchEventLoopDelayMs: { p50: number; p99: number; max: number };
      serverLog: { line: string; count: number }[];
    }
  | { status: 'skipped'; database: 'pglite' | 'postgres'; reason: string }
  | {
      status: 'error';
      database: 'pglite' | 'postgres';
      error: string;
      serverLog: { line: string; count: number }[];
    };

const loadAverage = () => os.loadavg().map((value) => round(value, 2));
const bump = (record: Record<string, number>, key: string) => {
  record[key] = (record[key] ?? 0) + 1;
};
const mb = (bytes: number | null | undefined) =>
  bytes === null || bytes === undefined ? '–' : `${int(bytes / 1024 / 1024)} MB`;

/** `fn` over `items`, at most `concurrency` at a time; results in the order of `items`. */
async function mapLimit<T, R>(items: readonly T[], concurrency: number, fn: (item: T) => Promise<R>) {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      for (let index = next++; index < items.length; index = next++) out[index] = await fn(items[index] as T);
    }),
  );
  return out;
}

/** One database: a fresh server, N users × their tasks, SSE clients, then every run at once. */
export async function benchPipeline(
  kind: 'pglite' | 'postgres',
  databaseUrl: string | undefined,
  config: PipelineConfig,
): Promise<PipelineDbResult> {
  const dataDir = await makeTempDir(`autocoder-bench-pipeline-${kind}-`);
  const port = await freePort();
  // The simulator runs in its own process, as a real provider would: its CPU is not the server's.
  const simulatorPort = await freePort();
  const simulator = spawnGroup(process.execPath, ['scripts/simulator.mjs'], root, {
    ...baseEnv(),
    SIMULATOR_PORT: String(simulatorPort),
    SIMULATOR_CHUNK_DELAY_MS: '0',
  });
  const env: NodeJS.ProcessEnv = {
    ...baseEnv(),
    PORT: String(port),
    HOST: '127.0.0.1',
    AUTOCODER_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    AUTOCODER_SIMULATOR_URL: `http://127.0.0.1:${simulatorPort}`,
    [RATE_LIMIT_ENV]: '1000000',
    AUTOCODER_METRICS_TOKEN: METRICS_TOKEN,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...config.serverEnv,
  };
  for (let attempt = 0; ; attempt++) {
    const up = await fetch(`http://127.0.0.1:${simulatorPort}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (attempt > 250) {
      await simulator.stop();
      throw new Error(`the simulator did not start:\n${simulator.output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
  const since = performance.now();
  const server = spawnGroup(process.execPath, [...cpuProfileArgs(), 'dist/server/main.js'], root, env);
  const agent = new http.Agent({ keepAlive: true, maxSockets: Math.max(64, config.runs), timeout: 4_000 });
  const tasks: TaskState[] = [];
  let sampler: NodeJS.Timeout | undefined;
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  try {
    const health = await waitHealthy(port, server, since, { intervalMs: 20 });
    const served = (JSON.parse(health.body) as Health).database;
    if (served !== kind) throw new Error(`the server runs on ${served}, expected ${kind}`);
    console.log(
      `  server up in ${ms(health.ms)} ms on port ${port} (simulator in its own process, no delay)`,
    );

    // --- setup: users (RUNS_PER_USER runs each), their tasks, the SSE clients
    const setupStart = performance.now();
    const userCount = Math.ceil(config.runs / RUNS_PER_USER);
    const tag = randomBytes(3).toString('hex');
    const users = await Promise.all(
      Array.from({ length: userCount }, async (_, index) => {
        const client = new BenchClient(agent, port);
        const email = `bench-pipeline-${tag}-${index}@example.com`;
        const projectId = await registerWithProject(client, email, PASSWORD);
        return { client, projectId };
      }),
    );
    const created = await mapLimit(
      Array.from({ length: config.runs }, (_, index) => index),
      20,
      async (index) => {
        const user = users[Math.floor(index / RUNS_PER_USER)];
        if (!user) throw new Error(`no user for run ${index}`);
        const task = await user.client.json<Task>(
          'POST',
          '/api/tasks',
          {
            projectId: user.projectId,
            title: `Add a health check endpoint ${index + 1}`,
            description:
              'Add GET /health answering {"status":"ok"} with a test. Keep it small; no new dependencies.',
            category: 'feature',
            priority: 'medium',
          },
          201,
        );
        return { id: task.id, owner: user.client };
      },
    );

    // Latencies go into plain arrays: the handler runs for every event on every client.
    const latencies: number[] = [];
    const byType = new Map<string, number[]>();
    const streamErrorKinds: Record<string, number> = {};
    for (const { id, owner } of created) {
      const state: TaskState = {
        id,
        owner,
        clients: [],
        startSentAt: 0,
        startStatus: 0,
        endedAt: null,
        endStatus: null,
      };
      for (let n = 0; n < config.clientsPerTask; n++) {
        const client: ClientState = {
          ids: [],
          completeAt: null,
          sse: new SseClient({
            port,
            path: `/api/sse/${id}`,
            headers: { cookie: owner.cookie },
            // Called only once the response arrives, after `client` is assigned.
            onEvent: (event: SseEvent) => onEvent(state, client, event),
          }),
        };
        state.clients.push(client);
      }
      tasks.push(state);
    }
    function onEvent(task: TaskState, client: ClientState, event: SseEvent) {
      if (event.id !== null) client.ids.push(Number(event.id));
      let data: { timestamp?: unknown; status?: unknown; result?: unknown };
      try {
        data = JSON.parse(event.data) as typeof data;
      } catch {
        bump(streamErrorKinds, `unparsable data in a ${event.event} event`);
        return;
      }
      if (typeof data.timestamp === 'number') {
        const latency = event.receivedAt - data.timestamp;
        latencies.push(latency);
        let list = byType.get(event.event);
        if (!list) {
          list = [];
          byType.set(event.event, list);
        }
        list.push(latency);
      }
      if (event.event === 'pipeline-complete') {
        client.completeAt = event.receivedAt;
        if (task.endedAt === null) {
          task.endedAt = event.receivedAt;
          task.endStatus = typeof data.result === 'string' ? data.result : 'complete';
        }
      } else if (
        event.event === 'phase-change' &&
        (data.status === 'paused' || data.status === 'cancelled') &&
        task.endedAt === null
      ) {
        // No pipeline-complete follows a pause or a cancellation.
        task.endedAt = event.receivedAt;
        task.endStatus = data.status;
      }
    }
    const allClients = tasks.flatMap((task) => task.clients);
    const opened = await Promise.race([
      Promise.allSettled(allClients.map((client) => client.sse.opened)),
      sleep(config.connectTimeoutMs ?? 30_000, null, { ref: false }),
    ]);
    if (opened === null)
      throw new Error(
        `the SSE clients did not all connect within ${(config.connectTimeoutMs ?? 30_000) / 1000} s`,
      );
    const refused = opened.filter((outcome) => outcome.status === 'rejected');
    if (refused.length > 0) {
      throw new Error(
        `${refused.length} of ${allClients.length} SSE clients could not connect: ${firstLine(
          (refused[0] as PromiseRejectedResult).reason,
        )}`,
      );
    }
    const setupMs = performance.now() - setupStart;
    console.log(
      `  setup: ${userCount} users, ${tasks.length} tasks, ${allClients.length} SSE clients connected (${ms(
        setupMs,
      )} ms)`,
    );

    // --- the runs: every start at once, then wait for every end
    const metricsClient = new BenchClient(agent, port);
    metricsClient.authorization = `Bearer ${METRICS_TOKEN}`;
    const before = await metricsClient.json<Metrics>('GET', '/api/metrics', undefined, 200);
    const idleRssBytes = processRssBytes(server.pid);
    let peakRssBytes = idleRssBytes;
    let samples = 0;
    sampler = setInterval(() => {
      const rss = processRssBytes(server.pid);
      if (rss === null) return;
      samples += 1;
      if (peakRssBytes === null || rss > peakRssBytes) peakRssBytes = rss;
    }, 100);
    const loadStart = loadAverage();
    const serverCpuBefore = processCpuMs(server.pid);
    const serverSchedBefore = schedStatMs(server.pid);
    const childrenBefore = childrenCpuMs(server.pid);
    const benchSchedBefore = schedStatMs('self');
    const benchCpuBefore = process.cpuUsage();
    loopDelay.enable();
    const runsStartedAt = Date.now();
    const wallStart = performance.now();

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

    // Ends come from the streams; every 5 s the tasks not yet ended are also asked for their status,
    // in case a stream died or a run stopped without telling.
    const deadline = runsStartedAt + config.timeCapMs;
    let lastPoll = Date.now();
    let lastReport = Date.now();
    let capped = false;
    const finalStatuses = new Set(['passed', 'failed', 'cancelled', 'paused']);
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
      if (pending.length === 0 && lagging.length === 0) break;
      if (now > deadline) {
        capped = true;
        break;
      }
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
            const status = await task.owner
              .json<RunStatus>('GET', `/api/pipeline/${task.id}/status`, undefined, 200)
              .catch(() => null);
            if (status && finalStatuses.has(status.status) && task.endedAt === null) {
              task.endedAt = Date.now();
              task.endStatus = status.status;
            }
          }),
        );
      }
      await sleep(50);
    }
    const wallMs = performance.now() - wallStart;
    loopDelay.disable();
    const serverCpuAfter = processCpuMs(server.pid);
    const serverSchedAfter = schedStatMs(server.pid);
    const childrenAfter = childrenCpuMs(server.pid);
    const benchSchedAfter = schedStatMs('self');
    const benchCpu = process.cpuUsage(benchCpuBefore);
    const loadEnd = loadAverage();

    // --- let the server settle: no active run, the event log written (its batches go every 200 ms)
    let after = await metricsClient.json<Metrics>('GET', '/api/metrics', undefined, 200);
    const settleBy = performance.now() + 10_000;
    for (;;) {
      await sleep(300);
      const next = await metricsClient.json<Metrics>('GET', '/api/metrics', undefined, 200);
      const settled =
        next.runs.active === 0 &&
        next.events.persisted === after.events.persisted &&
        next.database.writes === after.database.writes;
      after = next;
      if (settled || performance.now() > settleBy) break;
    }
    clearInterval(sampler);
    sampler = undefined;
    const afterRssBytes = processRssBytes(server.pid);
    if (capped) {
      const ended = started.filter((task) => task.endedAt !== null).length;
      console.log(`  time cap reached: ${ended} of ${started.length} runs had ended`);
    }

    // --- what the server recorded: run details, and the stored events of each run
    const details = await mapLimit(tasks, 10, (task) =>
      task.owner.json<RunStatus>('GET', `/api/pipeline/${task.id}/status`, undefined, 200),
    );
    const statuses: Record<string, number> = {};
    const ownMs: number[] = [];
    const runWallMs: number[] = [];
    const providerMs: number[] = [];
    let agentCalls = 0;
    let outputTokens = 0;
    let inputTokens = 0;
    for (const detail of details) {
      bump(statuses, detail.status);
      if (!('runId' in detail)) continue;
      outputTokens += detail.usage.outputTokens;
      inputTokens += detail.usage.inputTokens;
      agentCalls += detail.calls.length;
      if (!detail.completedAt) continue;
      const wall = Date.parse(detail.completedAt) - Date.parse(detail.startedAt);
      const streaming = detail.calls.reduce((sum, call) => sum + call.durationMs, 0);
      runWallMs.push(wall);
      providerMs.push(streaming);
      ownMs.push(wall - streaming);
    }
    const endToEnd = started
      .map((task) => {
        const first = Math.min(
          ...task.clients.map((client) => client.completeAt ?? Number.POSITIVE_INFINITY),
        );
        return Number.isFinite(first) ? first - task.startSentAt : null;
      })
      .filter((value): value is number => value !== null);
    const lastComplete = Math.max(
      runsStartedAt,
      ...allClients.map((client) => client.completeAt ?? 0),
      ...started.map((task) => task.endedAt ?? 0),
    );
    const spanMs = lastComplete - runsStartedAt;

    // --- delivery checks: the clients of a task agree, their ids are in order, nothing stored is missing
    let idMismatches = 0;
    let outOfOrder = 0;
    let missing = 0;
    let distinct = 0;
    await mapLimit(tasks, 5, async (task) => {
      const reference = task.clients.reduce(
        (longest, client) => (client.ids.length > longest.length ? client.ids : longest),
        [] as number[],
      );
      distinct += reference.length;
      const key = reference.join(',');
      if (task.clients.some((client) => client.ids.join(',') !== key)) idMismatches += 1;
      for (const client of task.clients) {
        for (let index = 1; index < client.ids.length; index++) {
          if ((client.ids[index] ?? 0) <= (client.ids[index - 1] ?? 0)) outOfOrder += 1;
        }
      }
      const detail = details[tasks.indexOf(task)];
      if (!detail || !('runId' in detail)) return;
      const stored = new Set<number>();
      for (let afterSeq = 0; ; ) {
        const page = await task.owner.json<{ events: { id: number }[] }>(
          'GET',
          `/api/pipeline/runs/${detail.runId}/events?after=${afterSeq}`,
          undefined,
          200,
        );
        for (const event of page.events) stored.add(event.id);
        const last = page.events.at(-1)?.id;
        if (page.events.length < 10_000 || last === undefined) break;
        afterSeq = last;
      }
      for (const client of task.clients) {
        const seen = new Set(client.ids);
        for (const id of stored) if (!seen.has(id)) missing += 1;
      }
    });
    for (const client of allClients) {
      if (client.sse.error) bump(streamErrorKinds, firstLine(client.sse.error));
    }
    const streamErrors = allClients.filter((client) => client.sse.error !== null).length;
    const delivered = allClients.reduce((sum, client) => sum + client.sse.events, 0);

    const writes = after.database.writes - before.database.writes;
    const statements = after.database.statements - before.database.statements;
    const inserts = after.events.writes - before.events.writes;
    const persisted = after.events.persisted - before.events.persisted;
    const per1k = (count: number) => (outputTokens > 0 ? round((count / outputTokens) * 1000, 2) : null);
    const cpuPercent = (used: number, elapsed: number) => round((used / elapsed) * 100, 0);

    return {
      status: 'ok',
      database: kind,
      ...(databaseUrl ? { postgresUrl: redactUrl(databaseUrl) } : {}),
      serverStartMs: round(health.ms, 0),
      setup: {
        users: userCount,
        tasks: tasks.length,
        sseClients: allClients.length,
        setupMs: round(setupMs, 0),
      },
      loadAverage: { start: loadStart, end: loadEnd },
      runs: {
        requested: tasks.length,
        started: started.length,
        startErrors,
        statuses,
        unfinished: started.filter((task) => task.endedAt === null).length,
        capped,
        spanMs: round(spanMs, 0),
        agentCalls,
      },
      startLatencyMs: summarize(startLatencies),
      orchestrator: {
        ownMsPerRun: summarize(ownMs),
        runWallMs: summarize(runWallMs),
        providerMsPerRun: summarize(providerMs),
        ownShare: round(
          ownMs.reduce((sum, value) => sum + value, 0) /
            Math.max(
              1,
              runWallMs.reduce((sum, v) => sum + v, 0),
            ),
          3,
        ),
      },
      endToEndMs: summarize(endToEnd),
      tokens: { output: outputTokens, input: inputTokens },
      dbWrites: {
        writes,
        statements,
        writesPer1kTokens: per1k(writes),
        statementsPer1kTokens: per1k(statements),
        writesPerRun: started.length > 0 ? round(writes / started.length, 1) : null,
        otherWritesPerRun: started.length > 0 ? round((writes - inserts) / started.length, 1) : null,
      },
      eventLog: { persisted, inserts, eventsPerInsert: inserts > 0 ? round(persisted / inserts, 1) : null },
      delivery: {
        latencyMs: summarize(latencies),
        byType: Object.fromEntries([...byType].map(([type, values]) => [type, summarize(values)])),
        delivered,
        distinct,
        perSecond: spanMs > 0 ? round((delivered / spanMs) * 1000, 0) : 0,
        idMismatches,
        missing,
        outOfOrder,
        streamErrors,
        streamErrorKinds,
      },
      memory: {
        idleRssBytes,
        peakRssBytes,
        afterRssBytes,
        samples,
        metricsRssBytes: after.process.rssBytes,
        metricsHeapUsedBytes: after.process.heapUsedBytes,
      },
      serverCpuPercent:
        serverCpuBefore === null || serverCpuAfter === null
          ? null
          : cpuPercent(serverCpuAfter - serverCpuBefore, wallMs),
      serverMainThread:
        serverSchedBefore && serverSchedAfter
          ? {
              runPercent: cpuPercent(serverSchedAfter.runMs - serverSchedBefore.runMs, wallMs),
              runQueueWaitPercent: cpuPercent(serverSchedAfter.waitMs - serverSchedBefore.waitMs, wallMs),
            }
          : null,
      serverChildrenCpuPercent:
        childrenBefore === null || childrenAfter === null
          ? null
          : cpuPercent(childrenAfter - childrenBefore, wallMs),
      benchCpuPercent: cpuPercent((benchCpu.user + benchCpu.system) / 1000, wallMs),
      benchRunQueueWaitPercent:
        benchSchedBefore && benchSchedAfter
          ? cpuPercent(benchSchedAfter.waitMs - benchSchedBefore.waitMs, wallMs)
          : null,
      benchEventLoopDelayMs: {
        p50: round(loopDelay.percentile(50) / 1e6, 1),
        p99: round(loopDelay.percentile(99) / 1e6, 1),
        max: round(loopDelay.max / 1e6, 1),
      },
      serverLog: summarizeLog(server.output()),
    };
  } catch (error) {
    console.log(`  failed: ${firstLine(error)}`);
    return {
      status: 'error',
      database: kind,
      error: error instanceof Error ? error.message.slice(0, 2_000) : String(error),
      serverLog: summarizeLog(server.output()),
    };
  } finally {
    if (sampler) clearInterval(sampler);
    loopDelay.disable();
    for (const task of tasks) for (const client of task.clients) client.sse?.close();
    agent.destroy();
    await server.stop();
    await simulator.stop();
    await removeTempDir(dataDir);
  }
}

// ---------------------------------------------------------------------------------------------
// Report

const title = (kind: 'pglite' | 'postgres') => (kind === 'pglite' ? 'PGlite' : 'PostgreSQL');

/** The table and notes of one database. */
export function printPipeline(result: PipelineDbResult, config: PipelineConfig): void {
  if (result.status === 'skipped') {
    console.log(`\n${title(result.database)}: skipped — ${result.reason}`);
    return;
  }
  if (result.status === 'error') {
    console.log(`\n${title(result.database)}: FAILED — ${firstLine(result.error)}`);
    for (const entry of result.serverLog.slice(0, 5))
      console.log(`  server log ×${entry.count}: ${entry.line}`);
    return;
  }
  const r = result;
  console.log(
    `\n${title(r.database)} — ${r.runs.requested} runs at once on the simulator (no delay), ${r.setup.users} users, ` +
      `${r.setup.sseClients} SSE clients (${config.clientsPerTask} per task); load average ` +
      `${r.loadAverage.start.join(' ')} → ${r.loadAverage.end.join(' ')}`,
  );
  const statuses = Object.entries(r.runs.statuses)
    .map(([status, count]) => `${count} ${status}`)
    .join(', ');
  console.log(
    `  runs: ${r.runs.started} started, ${statuses}; ${r.runs.agentCalls} agent calls; all ended in ` +
      `${ms(r.runs.spanMs)} ms${r.runs.capped ? ` — TIME CAP REACHED, ${r.runs.unfinished} unfinished` : ''}`,
  );
  const row = (name: string, s: LatencySummary) => [
    name,
    int(s.count),
    ms(s.min),
    ms(s.mean),
    ms(s.p50),
    ms(s.p90),
    ms(s.p99),
    ms(s.max),
  ];
  console.log(
    table(
      ['ms', 'n', 'min', 'mean', 'p50', 'p90', 'p99', 'max'],
      [
        row('start-pipeline latency (all at once)', r.startLatencyMs),
        row('SSE delivery, push → client', r.delivery.latencyMs),
        ...Object.entries(r.delivery.byType)
          .sort((a, b) => b[1].count - a[1].count)
          .map(([type, s]) => row(`  ${type}`, s)),
        row("orchestrator's own time per run", r.orchestrator.ownMsPerRun),
        row('agent calls streaming, per run', r.orchestrator.providerMsPerRun),
        row('run wall time (completedAt − startedAt)', r.orchestrator.runWallMs),
        row('start sent → pipeline-complete read', r.endToEndMs),
      ],
    ),
  );
  const sharePct = round(r.orchestrator.ownShare * 100, 1);
  const figures: [string, string][] = [
    ['output tokens streamed', int(r.tokens.output)],
    [
      'database writes (INSERT/UPDATE/DELETE)',
      `${int(r.dbWrites.writes)} = ${r.dbWrites.writesPer1kTokens ?? '–'} per 1,000 tokens; ${r.dbWrites.writesPerRun ?? '–'} per run, of which ${r.dbWrites.otherWritesPerRun ?? '–'} not the event log's`,
    ],
    [
      'database statements',
      `${int(r.dbWrites.statements)} = ${r.dbWrites.statementsPer1kTokens ?? '–'} per 1,000 tokens`,
    ],
    [
      'event log',
      `${int(r.eventLog.persisted)} events in ${int(r.eventLog.inserts)} INSERTs (${r.eventLog.eventsPerInsert ?? '–'} per INSERT)`,
    ],
    [
      'events delivered',
      `${int(r.delivery.delivered)} (${int(r.delivery.distinct)} distinct), ${int(r.delivery.perSecond)}/s`,
    ],
    [
      'delivery checks',
      `${r.delivery.idMismatches} id mismatches, ${r.delivery.missing} missing, ${r.delivery.outOfOrder} out of order, ${r.delivery.streamErrors} stream errors`,
    ],
    ["orchestrator's share of run wall time", `${sharePct}%`],
    [
      'server memory (VmRSS)',
      `idle ${mb(r.memory.idleRssBytes)}, peak ${mb(r.memory.peakRssBytes)}, after ${mb(r.memory.afterRssBytes)}; metrics rss ${mb(r.memory.metricsRssBytes)}, heap ${mb(r.memory.metricsHeapUsedBytes)}`,
    ],
    [
      'server CPU during the runs',
      `${r.serverCpuPercent ?? '–'}% of a core; event loop thread ran ${r.serverMainThread?.runPercent ?? '–'}% and waited for a CPU ${r.serverMainThread?.runQueueWaitPercent ?? '–'}% of the time; git etc. ${r.serverChildrenCpuPercent ?? '–'}%`,
    ],
    [
      'bench CPU during the runs',
      `${r.benchCpuPercent}%, waited for a CPU ${r.benchRunQueueWaitPercent ?? '–'}% of the time; event-loop delay p99 ${r.benchEventLoopDelayMs.p99} ms, max ${r.benchEventLoopDelayMs.max} ms`,
    ],
  ];
  const width = Math.max(...figures.map(([label]) => label.length));
  for (const [label, value] of figures) console.log(`  ${label.padEnd(width)}  ${value}`);
  if (Object.keys(r.runs.startErrors).length)
    console.log(`  start-pipeline errors: ${JSON.stringify(r.runs.startErrors)}`);
  if (Object.keys(r.delivery.streamErrorKinds).length)
    console.log(`  stream errors: ${JSON.stringify(r.delivery.streamErrorKinds)}`);
  for (const entry of r.serverLog.slice(0, 5)) console.log(`  server log ×${entry.count}: ${entry.line}`);
}

/** Three aims per database measured. */
export function pipelineAims(results: readonly PipelineDbResult[], config: PipelineConfig): Aim[] {
  const aims: Aim[] = [];
  for (const result of results) {
    const name = title(result.database);
    const ok = result.status === 'ok' ? result : null;
    const delivery = ok ? ok.delivery.latencyMs.p99 : null;
    const writes = ok ? ok.dbWrites.writesPer1kTokens : null;
    const start = ok ? ok.startLatencyMs.p99 : null;
    const valid = (value: number | null) => value !== null && !Number.isNaN(value);
    aims.push(
      {
        name: `${name}: SSE delivery p99, push → client (${config.runs} runs, ${config.runs * config.clientsPerTask} clients)`,
        target: `< ${PIPELINE_AIMS.deliveryP99Ms} ms`,
        actual: delivery,
        unit: 'ms',
        met: valid(delivery) ? (delivery as number) < PIPELINE_AIMS.deliveryP99Ms : null,
      },
      {
        name: `${name}: database writes per 1,000 streamed tokens`,
        target: `≤ ${PIPELINE_AIMS.writesPer1kTokens}`,
        actual: writes,
        unit: 'writes per 1,000 tokens',
        met: valid(writes) ? (writes as number) <= PIPELINE_AIMS.writesPer1kTokens : null,
      },
      {
        name: `${name}: start-pipeline p99 (${config.runs} at once)`,
        target: `< ${PIPELINE_AIMS.startP99Ms} ms`,
        actual: start,
        unit: 'ms',
        met: valid(start) ? (start as number) < PIPELINE_AIMS.startP99Ms : null,
      },
    );
  }
  return aims;
}
