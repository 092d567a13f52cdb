// The board part of `npm run bench` (`npm run bench -- board`): a project of 1,000 tasks listed by 50
// clients at once, as the board's browser asks for it — gzip accepted, the last ETag sent back.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import type { Task, TaskCard, TaskCategory, TaskPriority } from '../src/contracts/tasks.js';
import { intEnv, summarizeLog } from './lib/common.js';
import { int, ms } from './lib/format.js';
import { BenchClient, httpRequest, registerWithProject } from './lib/http.js';
import { runScenario, type ScenarioResult } from './lib/load.js';
import { redactUrl, settleDatabase } from './lib/postgres.js';
import { RawHttpConnection } from './lib/raw-http.js';
import { startBenchServer } from './lib/server.js';
import { round } from './lib/stats.js';

export const BOARD_AIMS = { listP99Ms: 20 };

export interface BoardConfig {
  clients: number;
  tasks: number;
  /** Timed requests per scenario. */
  requests: number;
  timeCapMs: number;
  /** A card moved this often during `changing` (ms). */
  writeIntervalMs: number;
}

export function boardConfig(): BoardConfig {
  return {
    clients: intEnv('BENCH_CLIENTS', 50),
    tasks: intEnv('BENCH_TASKS', 1000),
    requests: intEnv('BENCH_BOARD_REQUESTS', 10_000),
    timeCapMs: intEnv('BENCH_TIME_CAP_S', 10) * 1000,
    writeIntervalMs: intEnv('BENCH_BOARD_WRITE_INTERVAL_MS', 100),
  };
}

export type BoardDbResult =
  | {
      status: 'ok';
      database: 'pglite' | 'postgres';
      postgresUrl?: string;
      bytes: { json: number; gzip: number; full: number };
      scenarios: ScenarioResult[];
      /** In `changing`: answers that were 200 (a write made the ETag stale) and 304. */
      changing: { fresh: number; notModified: number; writes: number };
      loadAverage: { start: number[]; end: number[] };
      serverLog: { line: string; count: number }[];
    }
  | { status: 'skipped'; database: 'pglite' | 'postgres'; reason: string };

const CATEGORIES: TaskCategory[] = ['feature', 'bug', 'refactor', 'docs', 'test', 'chore'];
const PRIORITIES: TaskPriority[] = ['low', 'medium', 'high', 'urgent'];
const DESCRIPTION =
  'As a user I want the board to stay responsive with many cards, so that I can plan a release ' +
  'without waiting. Acceptance: the list loads quickly, moves are saved at once, nothing is lost.';
const PASSWORD = 'correct horse battery staple';

/** Microseconds on the monotonic clock, which V8's CPU profiles (startTime, timeDeltas) also use. */
const monotonicUs = () => process.hrtime.bigint() / 1000n;

const loadAverage = async () => (await import('node:os')).loadavg().map((value) => round(value, 2));

export async function benchBoard(
  kind: 'pglite' | 'postgres',
  databaseUrl: string | undefined,
  config: BoardConfig,
): Promise<BoardDbResult> {
  const bench = await startBenchServer({ kind, databaseUrl, name: 'board', cpuProfile: true });
  const { server, port } = bench;
  const agent = new http.Agent({ keepAlive: true, maxSockets: config.clients + 1, timeout: 4_000 });
  let connections: RawHttpConnection[] = [];
  try {
    const owner = new BenchClient(agent, port);
    const projectId = await registerWithProject(
      owner,
      `board-${randomBytes(4).toString('hex')}@example.com`,
      PASSWORD,
    );
    const ids: string[] = [];
    const seed = await runScenario({
      name: 'seed',
      label: 'POST /api/tasks',
      requests: config.tasks,
      concurrency: 20,
      timeCapMs: 120_000,
      warmup: 0,
      expect: 201,
      send: async (_worker, index) => {
        const res = await owner.request('POST', '/api/tasks', {
          projectId,
          title: `Bench task ${index + 1}`,
          description: DESCRIPTION,
          category: CATEGORIES[index % CATEGORIES.length],
          priority: PRIORITIES[index % PRIORITIES.length],
          status: index % 2 === 0 ? 'backlog' : 'spec',
        });
        if (res.status === 201) ids.push((JSON.parse(res.body.toString('utf8')) as Task).id);
        return res.status;
      },
    });
    if (ids.length !== config.tasks) throw new Error(`seeding made ${ids.length} of ${config.tasks} tasks`);
    console.log(`  seeded ${int(ids.length)} tasks in ${ms(seed.durationMs)} ms`);
    if (kind === 'postgres' && databaseUrl) await settleDatabase(databaseUrl);

    const listPath = `/api/tasks?projectId=${projectId}`;
    const searchPath = `${listPath}&q=${encodeURIComponent('task 1')}`;
    const clients = Array.from({ length: config.clients }, () => new BenchClient(agent, port));
    for (const client of clients) client.cookie = owner.cookie;
    // The timed clients' requests go on bare keep-alive sockets (lib/raw-http.ts), one per client.
    connections = clients.map(() => new RawHttpConnection(port));
    const timed = connections;
    const get = (worker: number, target: string, extra: Record<string, string> = {}) => {
      const client = clients[worker] ?? owner;
      const connection = timed[worker];
      const headers = { ...client.headers('GET', false), ...extra };
      return connection
        ? connection.request('GET', target, headers)
        : httpRequest(agent, port, 'GET', target, { headers });
    };

    // What one board load weighs, and the ETag the browser keeps.
    const gz = await get(0, listPath, { 'accept-encoding': 'gzip' });
    const plain = await get(0, listPath);
    const full = await get(0, `${listPath}&view=full`);
    const cards = (JSON.parse(gunzipSync(gz.body).toString('utf8')) as { tasks: TaskCard[] }).tasks;
    if (gz.status !== 200 || cards.length !== config.tasks) {
      throw new Error(`the list answered ${gz.status} with ${cards.length} cards`);
    }
    const bytes = { json: plain.body.length, gzip: gz.body.length, full: full.body.length };
    console.log(
      `  one list: ${int(bytes.json)} bytes of cards, ${int(bytes.gzip)} gzipped (whole tasks: ${int(bytes.full)})`,
    );
    const etag = String(gz.headers.etag ?? '');

    const start = await loadAverage();
    const scenario = (
      name: string,
      label: string,
      expect: number,
      send: (worker: number) => Promise<number>,
    ) => {
      const from = monotonicUs();
      const done = runScenario({
        name,
        label,
        requests: config.requests,
        concurrency: config.clients,
        timeCapMs: config.timeCapMs,
        warmup: config.clients,
        expect,
        serverPid: server.pid,
        send,
      });
      // The scenario's part of the server's CPU profile: the profile's clock is this one.
      if (process.env.BENCH_CPU_PROF)
        void done.then(() => console.log(`  ${name}: CPU profile window ${from}..${monotonicUs()} µs`));
      return done;
    };
    const scenarios: ScenarioResult[] = [];
    const measure = async (result: Promise<ScenarioResult>) => {
      const done = await result;
      scenarios.push(done);
      console.log(
        `  ${done.name.padEnd(14)} ${int(done.ok).padStart(5)} ok  p50 ${ms(done.latency.p50)} ms  p99 ${ms(done.latency.p99)} ms  ${int(done.throughput)} req/s${done.errors ? `  ${done.errors} errors ${JSON.stringify(done.errorKinds)}` : ''}`,
      );
    };

    await measure(
      scenario('list', 'GET /api/tasks (200, cards)', 200, async (w) => (await get(w, listPath)).status),
    );
    await measure(
      scenario(
        'list-gzip',
        'GET /api/tasks, Accept-Encoding: gzip (200)',
        200,
        async (w) => (await get(w, listPath, { 'accept-encoding': 'gzip' })).status,
      ),
    );
    await measure(
      scenario(
        'list-304',
        'GET /api/tasks, If-None-Match (304)',
        304,
        async (w) => (await get(w, listPath, { 'if-none-match': etag, 'accept-encoding': 'gzip' })).status,
      ),
    );
    await measure(
      scenario(
        'search',
        'GET /api/tasks?q=task 1 (200)',
        200,
        async (w) => (await get(w, searchPath, { 'accept-encoding': 'gzip' })).status,
      ),
    );

    // Boards that change: a card moves every writeIntervalMs while every client revalidates its own copy.
    const etags = clients.map(() => etag);
    const changing = { fresh: 0, notModified: 0, writes: 0 };
    let writing = true;
    const writer = (async () => {
      for (let turn = 0; writing; turn++) {
        const id = ids[turn % ids.length];
        const res = await owner.request('PATCH', `/api/tasks/${id}/status`, {
          status: turn % 2 === 0 ? 'spec' : 'backlog',
          position: 0,
        });
        if (res.status === 200) changing.writes += 1;
        await new Promise((resolve) => setTimeout(resolve, config.writeIntervalMs));
      }
    })();
    try {
      await measure(
        scenario(
          'changing',
          `GET /api/tasks, If-None-Match, 1 move / ${config.writeIntervalMs} ms`,
          200,
          async (w) => {
            const res = await get(w, listPath, {
              'if-none-match': etags[w] ?? '',
              'accept-encoding': 'gzip',
            });
            if (res.status === 200) {
              changing.fresh += 1;
              etags[w] = String(res.headers.etag ?? '');
            } else if (res.status === 304) changing.notModified += 1;
            return res.status === 304 ? 200 : res.status;
          },
        ),
      );
    } finally {
      writing = false;
      await writer;
    }

    return {
      status: 'ok',
      database: kind,
      ...(databaseUrl ? { postgresUrl: redactUrl(databaseUrl) } : {}),
      bytes,
      scenarios,
      changing,
      loadAverage: { start, end: await loadAverage() },
      serverLog: summarizeLog(server.output()),
    };
  } finally {
    for (const connection of connections) connection.close();
    agent.destroy();
    await bench.stop();
  }
}
