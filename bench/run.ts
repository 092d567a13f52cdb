// `npm run bench`: latency and throughput of the real server over real HTTP, on PGlite and on
// PostgreSQL, plus the time `npm start` takes to answer its first health check (the foundation part),
// concurrent pipeline runs watched over SSE (the pipeline part, bench/pipeline/), the board's list at
// 1,000 tasks (the board part, bench/board.ts), a run's diff of 200 files (bench/diff.ts), and the
// import graph of a generated 10,000-file TypeScript repository beside madge and dependency-cruiser
// (the graph part, bench/graph.ts), and 50 agents calling check_status / post_status over REST and MCP
// on each lock store (the coordination part, bench/coordination.ts).
// Workspace services through their proxies (the services part, bench/services-proxy.ts).
// `npm run bench -- foundation` (or pipeline, sse-flood, board, diff, graph, coordination, services)
// runs one part. See bench/README.md.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { Health } from '../src/contracts/health.js';
import type { Task, TaskCategory, TaskPriority, TaskStatus } from '../src/contracts/tasks.js';
import { type BoardDbResult, benchBoard, boardAims, boardConfig, printBoard } from './board.js';
import { benchCoordinationServer, type CoordinationServerResult } from './coordination.js';
import { coordinationConfig, type StoreKind } from './coordination-config.js';
import { type CoordinationPartResult, coordinationAims, printCoordination } from './coordination-report.js';
import { benchStoreDirect } from './coordination-store.js';
import { benchDiff, type DiffDbResult, diffConfig } from './diff.js';
import { diffAims, printDiff } from './diff-report.js';
import { benchGraph, type GraphResult, graphAims, graphConfig, printGraph } from './graph.js';
import { type Aim, baseEnv, firstLine, intEnv, summarizeLog } from './lib/common.js';
import { formatJson, int, ms, table } from './lib/format.js';
import { BenchClient, registerWithProject } from './lib/http.js';
import { runScenario, type ScenarioResult } from './lib/load.js';
import { type BenchDatabase, createBenchDatabase, redactUrl } from './lib/postgres.js';
import {
  cleanupSync,
  ensureBuilt,
  freePort,
  installIsStale,
  makeTempDir,
  removeTempDir,
  spawnGroup,
  stopAll,
  waitHealthy,
} from './lib/processes.js';
import { startBenchServer } from './lib/server.js';
import { median, round } from './lib/stats.js';
import { benchPipeline } from './pipeline/bench-pipeline.js';
import { pipelineConfig } from './pipeline/config.js';
import { pipelineAims, printPipeline } from './pipeline/report.js';
import type { PipelineDbResult } from './pipeline/result.js';
import {
  benchServices,
  printServices,
  type ServicesResult,
  servicesAims,
  servicesConfig,
} from './services-proxy.js';
import { benchSseFlood, printSseFlood, type SseFloodStage, sseFloodAims } from './sse-flood.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const PARTS = [
  'foundation',
  'pipeline',
  'sse-flood',
  'board',
  'diff',
  'graph',
  'coordination',
  'services',
] as const;
type Part = (typeof PARTS)[number];
const USAGE =
  'usage: npm run bench [-- foundation|pipeline|sse-flood|board|diff|graph|coordination|services …]   (no part: all, in that order)';

/** The parts named on the command line (`npm run bench -- pipeline`); none means all of them. */
function parseParts(args: readonly string[]): Part[] {
  if (args.some((arg) => arg === '-h' || arg === '--help')) {
    console.log(USAGE);
    process.exit(0);
  }
  const named = args.map((arg) => arg.trim().toLowerCase()).filter(Boolean);
  const unknown = named.filter((arg) => arg !== 'all' && !(PARTS as readonly string[]).includes(arg));
  if (unknown.length) {
    console.error(`unknown bench part: ${unknown.join(', ')}\n${USAGE}`);
    process.exit(2);
  }
  if (named.length === 0 || named.includes('all')) return [...PARTS];
  return PARTS.filter((part) => named.includes(part));
}

const parts = parseParts(process.argv.slice(2));

type DbKind = 'pglite' | 'postgres';

const config = {
  clients: intEnv('BENCH_CLIENTS', 50),
  tasks: intEnv('BENCH_TASKS', 1000),
  seedConcurrency: intEnv('BENCH_SEED_CONCURRENCY', 20),
  loginRequests: intEnv('BENCH_LOGIN_REQUESTS', 500),
  listRequests: intEnv('BENCH_LIST_REQUESTS', 2000),
  moveRequests: intEnv('BENCH_MOVE_REQUESTS', 2000),
  serialRequests: intEnv('BENCH_SERIAL_REQUESTS', 60),
  timeCapMs: intEnv('BENCH_TIME_CAP_S', 10) * 1000,
  startRuns: intEnv('BENCH_START_RUNS', 3),
  databases: (process.env.BENCH_DATABASES ?? 'pglite,postgres')
    .split(',')
    .map((name) => name.trim())
    .filter((name): name is DbKind => name === 'pglite' || name === 'postgres'),
  postgresUrl:
    process.env.BENCH_DATABASE_URL ||
    process.env.TEST_DATABASE_URL ||
    'postgres://postgres@127.0.0.1:5432/test',
};

const pipelineSettings = pipelineConfig();
const boardSettings = boardConfig();
const diffSettings = diffConfig();

const AIMS = { coldStartMs: 3000, postgresReadP99Ms: 20 };
const PASSWORD = 'correct horse battery staple';

// ---------------------------------------------------------------------------------------------
// Start-up: `npm start` → first 200 of /api/health

interface StartFigures {
  runs: number[];
  min: number;
  median: number;
  max: number;
}

type StartResult =
  | {
      status: 'ok';
      database: 'pglite';
      pollIntervalMs: number;
      cold: StartFigures;
      warm: StartFigures;
      /** Set when fewer runs than asked for were made, with why. */
      note?: string;
    }
  | { status: 'skipped'; reason: string };

const figures = (runs: number[]): StartFigures => ({
  runs: runs.map((value) => round(value, 0)),
  min: round(Math.min(...runs), 0),
  median: round(median(runs), 0),
  max: round(Math.max(...runs), 0),
});

/** One `npm start` in `dataDir`: ms from spawn to the first 200, then a clean stop. */
async function timeNpmStart(dataDir: string): Promise<{ ms: number; prepared: boolean }> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...baseEnv(),
    PORT: String(port),
    HOST: '127.0.0.1',
    AUTOCODER_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    npm_config_update_notifier: 'false',
  };
  const since = performance.now();
  const spawned = spawnGroup('npm', ['start'], root, env);
  try {
    const health = await waitHealthy(port, spawned, since, { intervalMs: 20 });
    const body = JSON.parse(health.body) as Health;
    if (body.database !== 'pglite') throw new Error(`npm start served ${body.database}, expected pglite`);
    // start.mjs says so when it installs or builds first: that start measured a build, not a start.
    return { ms: health.ms, prepared: /\[autocoder\] (installing|building)/.test(spawned.output()) };
  } finally {
    await spawned.stop();
  }
}

async function measureStart(): Promise<StartResult> {
  if (installIsStale(root)) {
    return {
      status: 'skipped',
      reason: 'node_modules is older than package-lock.json, so npm start would run npm ci first',
    };
  }
  /** One measured start: in `dataDir` (warm), or in a fresh temp dir when it is null (cold). */
  const startOnce = async (dataDir: string | null): Promise<{ ms: number; dataDir: string }> => {
    for (let attempt = 1; ; attempt++) {
      await ensureBuilt(root);
      const dir = dataDir ?? (await makeTempDir('autocoder-bench-start-'));
      const run = await timeNpmStart(dir);
      if (!run.prepared) return { ms: run.ms, dataDir: dir };
      // That start built first (the sources changed meanwhile): it measured a build. A cold start
      // needs a data dir nobody has opened yet, so it gets a new one.
      if (dataDir === null) await removeTempDir(dir);
      if (attempt >= 3) throw new Error('npm start rebuilt on every try: are the sources being edited?');
      console.log('  (npm start rebuilt first — the sources changed meanwhile; measuring again)');
    }
  };

  // Warm-up: page cache, npm's own start-up, and any build npm start would do.
  await removeTempDir((await startOnce(null)).dataDir);

  const cold: number[] = [];
  const warm: number[] = [];
  let note: string | undefined;
  try {
    for (let run = 0; run < config.startRuns; run++) {
      const first = await startOnce(null);
      const second = await startOnce(first.dataDir);
      await removeTempDir(first.dataDir);
      cold.push(first.ms);
      warm.push(second.ms);
      console.log(`  run ${run + 1}: cold ${ms(first.ms)} ms, warm ${ms(second.ms)} ms`);
    }
  } catch (error) {
    // Typically a rebuild that fails because the sources are mid-edit: keep the runs already made.
    if (cold.length === 0) throw error;
    note = `${cold.length} of ${config.startRuns} runs: then ${firstLine(error)}`;
    console.log(`  stopped after ${cold.length} runs: ${firstLine(error)}`);
  }
  return {
    status: 'ok',
    database: 'pglite',
    pollIntervalMs: 20,
    cold: figures(cold),
    warm: figures(warm),
    ...(note ? { note } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Load: login, list, move against `node dist/server/main.js`

interface SeedTask {
  id: string;
  status: TaskStatus;
}

type DatabaseResult =
  | {
      status: 'ok';
      database: DbKind;
      postgresUrl?: string;
      serverStartMs: number;
      listResponseBytes: number;
      seed: ScenarioResult;
      scenarios: {
        login: ScenarioResult;
        list: ScenarioResult;
        listSerial: ScenarioResult;
        move: ScenarioResult;
      };
      rateLimitLifted: boolean;
      /** Distinct warn/error lines the server logged, with how often. */
      serverLog: { line: string; count: number }[];
    }
  | { status: 'skipped'; database: DbKind; reason: string };

const CATEGORIES: TaskCategory[] = ['feature', 'bug', 'refactor', 'docs', 'test', 'chore'];
const PRIORITIES: TaskPriority[] = ['low', 'medium', 'high', 'urgent'];
const DESCRIPTION =
  'As a user I want the board to stay responsive with many cards, so that I can plan a release ' +
  'without waiting. Acceptance: the list loads quickly, moves are saved at once, nothing is lost.';

async function benchServer(kind: DbKind, databaseUrl: string | undefined): Promise<DatabaseResult> {
  const bench = await startBenchServer({ kind, databaseUrl });
  const { server, port } = bench;
  // Idle sockets are dropped after 4 s, before the server's 5 s keep-alive timeout can close one
  // under a request just being sent (which would show as ECONNRESET).
  const agent = new http.Agent({
    keepAlive: true,
    maxSockets: Math.max(config.clients, config.seedConcurrency),
    timeout: 4_000,
  });
  try {
    console.log(`  server up in ${ms(bench.startMs)} ms on port ${port}`);

    // --- seed: one account, its default project, N tasks
    const email = `bench-${randomBytes(4).toString('hex')}@example.com`;
    const owner = new BenchClient(agent, port);
    const projectId = await registerWithProject(owner, email, PASSWORD);

    const tasks: SeedTask[] = [];
    const seed = await runScenario({
      name: 'seed',
      label: 'POST /api/tasks',
      requests: config.tasks,
      concurrency: config.seedConcurrency,
      timeCapMs: Math.max(config.timeCapMs, 60_000),
      warmup: 0,
      expect: 201,
      serverPid: server.pid,
      send: async (_worker, index) => {
        const res = await owner.request('POST', '/api/tasks', {
          projectId,
          title: `Bench task ${index + 1}`,
          description: DESCRIPTION,
          category: CATEGORIES[index % CATEGORIES.length],
          priority: PRIORITIES[index % PRIORITIES.length],
          status: index % 2 === 0 ? 'backlog' : 'spec',
        });
        if (res.status === 201) {
          const task = JSON.parse(res.body.toString('utf8')) as Task;
          tasks.push({ id: task.id, status: task.status });
        }
        return res.status;
      },
    });
    if (tasks.length !== config.tasks) {
      throw new Error(
        `seeding made ${tasks.length} of ${config.tasks} tasks: ${JSON.stringify(seed.errorKinds)}`,
      );
    }
    const listPath = `/api/tasks?projectId=${projectId}`;
    const listed = await owner.request('GET', listPath);
    const listedTasks = (JSON.parse(listed.body.toString('utf8')) as { tasks: Task[] }).tasks;
    if (listed.status !== 200 || listedTasks.length !== config.tasks) {
      throw new Error(`the list answered ${listed.status} with ${listedTasks.length} tasks`);
    }
    console.log(
      `  seeded ${int(tasks.length)} tasks (${int(seed.throughput)}/s); list is ${int(listed.body.length)} bytes`,
    );

    // --- (a) login: every client signs in as its own account. Failed logins count per email before
    // the password is verified, so 50 parallel logins to one account would mostly be refused (429).
    const clients = Array.from({ length: config.clients }, () => new BenchClient(agent, port));
    const clientOf = (worker: number) => {
      const client = clients[worker];
      if (!client) throw new Error(`no client ${worker}`);
      return client;
    };
    const loginEmails = clients.map(
      (_, i) => `bench-login-${i}-${randomBytes(3).toString('hex')}@example.com`,
    );
    await Promise.all(
      loginEmails.map((address) =>
        new BenchClient(agent, port).json(
          'POST',
          '/api/auth/register',
          { email: address, password: PASSWORD },
          201,
        ),
      ),
    );
    const login = await runScenario({
      name: 'login',
      label: 'POST /api/auth/login',
      requests: config.loginRequests,
      concurrency: config.clients,
      timeCapMs: config.timeCapMs,
      warmup: config.clients,
      expect: 200,
      serverPid: server.pid,
      send: async (worker) =>
        (
          await clientOf(worker).request('POST', '/api/auth/login', {
            email: loginEmails[worker],
            password: PASSWORD,
          })
        ).status,
    });
    print1(login);
    // What follows acts on the owner's board: every client signs in as the owner.
    for (const client of clients) {
      client.cookie = '';
      await client.json('POST', '/api/auth/login', { email, password: PASSWORD }, 200);
    }

    // --- (b) list the project of N tasks
    // As a browser asks for it (the board part measures it without gzip and with If-None-Match).
    const sendList = async (worker: number) =>
      (await clientOf(worker).request('GET', listPath, undefined, { 'accept-encoding': 'gzip' })).status;
    const list = await runScenario({
      name: 'list',
      label: 'GET /api/tasks?projectId=… (gzip)',
      requests: config.listRequests,
      concurrency: config.clients,
      timeCapMs: config.timeCapMs,
      warmup: config.clients,
      expect: 200,
      serverPid: server.pid,
      send: sendList,
    });
    print1(list);
    const listSerial = await runScenario({
      name: 'list-serial',
      label: 'GET /api/tasks?projectId=… (gzip, 1 client)',
      requests: config.serialRequests,
      concurrency: 1,
      timeCapMs: config.timeCapMs,
      warmup: 10,
      expect: 200,
      serverPid: server.pid,
      send: sendList,
    });
    print1(listSerial);

    // --- (c) status moves: each client owns its own cards and flips them backlog ↔ spec
    const owned = clients.map((_, worker) => tasks.filter((_, index) => index % config.clients === worker));
    const cursor = clients.map(() => 0);
    const columnSize = Math.ceil(config.tasks / 2);
    const move = await runScenario({
      name: 'move',
      label: 'PATCH /api/tasks/:id/status',
      requests: config.moveRequests,
      concurrency: config.clients,
      timeCapMs: config.timeCapMs,
      warmup: config.clients,
      expect: 200,
      serverPid: server.pid,
      send: async (worker) => {
        const mine = owned[worker] ?? [];
        const turn = cursor[worker] ?? 0;
        cursor[worker] = turn + 1;
        const task = mine[turn % mine.length];
        if (!task) throw new Error(`client ${worker} owns no task`);
        const to: TaskStatus = task.status === 'backlog' ? 'spec' : 'backlog';
        const position = Math.floor(Math.random() * (columnSize + 1));
        const res = await clientOf(worker).request('PATCH', `/api/tasks/${task.id}/status`, {
          status: to,
          position,
        });
        if (res.status === 200) task.status = to;
        return res.status;
      },
    });
    print1(move);

    const after = await owner.json<{ tasks: Task[] }>('GET', listPath, undefined, 200);
    if (after.tasks.length !== config.tasks)
      throw new Error(`after the moves the list has ${after.tasks.length} tasks`);

    const scenarios = { login, list, listSerial, move };
    return {
      status: 'ok',
      database: kind,
      ...(databaseUrl ? { postgresUrl: redactUrl(databaseUrl) } : {}),
      serverStartMs: round(bench.startMs, 0),
      listResponseBytes: listed.body.length,
      seed,
      scenarios,
      rateLimitLifted: login.rateLimited === 0,
      serverLog: summarizeLog(server.output()),
    };
  } finally {
    agent.destroy();
    await bench.stop();
  }
}

function print1(result: ScenarioResult): void {
  const extra = [
    result.rateLimited ? `${result.rateLimited} × 429` : '',
    result.errors ? `${result.errors} errors ${JSON.stringify(result.errorKinds)}` : '',
    result.capped ? 'time cap reached' : '',
  ]
    .filter(Boolean)
    .join(', ');
  console.log(
    `  ${result.name.padEnd(11)} ${int(result.ok).padStart(5)} ok  p50 ${ms(result.latency.p50)} ms  p99 ${ms(
      result.latency.p99,
    )} ms  ${int(result.throughput)} req/s${extra ? `  (${extra})` : ''}`,
  );
}

// ---------------------------------------------------------------------------------------------
// Report

function scenarioTable(result: Extract<DatabaseResult, { status: 'ok' }>): string {
  const rows = [
    result.scenarios.login,
    result.scenarios.list,
    result.scenarios.listSerial,
    result.scenarios.move,
    result.seed,
  ].map((s) => [
    `${s.name}  ${s.label}`,
    String(s.concurrency),
    int(s.ok),
    int(s.rateLimited),
    int(s.errors),
    ms(s.latency.mean),
    ms(s.latency.p50),
    ms(s.latency.p90),
    ms(s.latency.p99),
    ms(s.latency.max),
    int(s.throughput),
    s.serverCpuPercent === null ? '–' : `${s.serverCpuPercent}%`,
  ]);
  return table(
    ['scenario', 'clients', 'ok', '429', 'err', 'mean', 'p50', 'p90', 'p99', 'max', 'req/s', 'srv CPU'],
    rows,
  );
}

function environment() {
  const git = (args: string[]) => {
    try {
      return execFileSync('git', args, {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim();
    } catch {
      return null;
    }
  };
  const status = git(['status', '--porcelain']);
  return {
    node: process.version,
    platform: `${process.platform} ${os.release()} ${process.arch}`,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryMb: Math.round(os.totalmem() / 1024 / 1024),
    /** 1/5/15-minute load averages when the bench began: other work on the machine skews every figure. */
    loadAverage: os.loadavg().map((value) => round(value, 2)),
    commit: git(['rev-parse', '--short', 'HEAD']),
    dirty: status === null ? null : status.length > 0,
  };
}

// ---------------------------------------------------------------------------------------------

let benchDatabase: BenchDatabase | undefined;

async function cleanup(): Promise<void> {
  await stopAll();
  if (benchDatabase) {
    await benchDatabase.drop().catch((error: unknown) => {
      console.error(
        `could not drop ${benchDatabase?.name}: ${error instanceof Error ? error.message : error}`,
      );
    });
  }
}

/**
 * Runs `measure` once per database of BENCH_DATABASES: PostgreSQL in a fresh database dropped
 * afterwards (and by cleanup() on error or Ctrl-C), or skipped when PostgreSQL cannot be reached.
 */
async function eachDatabase<R>(
  measure: (kind: DbKind, databaseUrl: string | undefined) => Promise<R>,
  skipped: (kind: DbKind, reason: string) => R,
): Promise<R[]> {
  const results: R[] = [];
  for (const kind of config.databases) {
    console.log(`\n${kind === 'pglite' ? 'PGlite' : 'PostgreSQL'}`);
    if (kind === 'pglite') {
      results.push(await measure('pglite', undefined));
      continue;
    }
    const created = await createBenchDatabase(config.postgresUrl);
    if ('skipped' in created) {
      const reason = `PostgreSQL at ${redactUrl(config.postgresUrl)} is unreachable (${created.skipped})`;
      console.log(`  skipped the PostgreSQL part: ${reason}`);
      results.push(skipped('postgres', reason));
      continue;
    }
    benchDatabase = created.database;
    console.log(`  database ${created.database.name} on ${redactUrl(config.postgresUrl)}`);
    try {
      results.push(await measure('postgres', created.database.url));
    } finally {
      await created.database.drop();
      benchDatabase = undefined;
    }
  }
  return results;
}

interface FoundationResult {
  start: StartResult;
  databases: DatabaseResult[];
  aims: Aim[];
}

async function runFoundation(): Promise<FoundationResult> {
  console.log(
    `\n=== Foundation: ${config.clients} clients; ${config.loginRequests} logins, ${config.listRequests} lists of ` +
      `${config.tasks} tasks, ${config.moveRequests} moves; ${config.timeCapMs / 1000} s cap per scenario\n`,
  );
  console.log(`Start-up: npm start → first 200 of /api/health (${config.startRuns} runs)`);
  const start: StartResult =
    config.startRuns > 0
      ? await measureStart().catch(
          (error: unknown): StartResult => ({
            status: 'skipped',
            reason: `npm start failed: ${firstLine(error)}`,
          }),
        )
      : { status: 'skipped', reason: 'BENCH_START_RUNS=0' };
  if (start.status === 'skipped') console.log(`  skipped: ${start.reason}`);

  const databases = await eachDatabase<DatabaseResult>(benchServer, (database, reason) => ({
    status: 'skipped',
    database,
    reason,
  }));

  const postgres = databases.find((result) => result.database === 'postgres');
  const postgresList = postgres?.status === 'ok' ? postgres.scenarios.list.latency.p99 : null;
  const aims: Aim[] = [
    {
      name: 'cold start (npm start → first 200 of /api/health), median',
      target: `< ${AIMS.coldStartMs} ms`,
      actual: start.status === 'ok' ? start.cold.median : null,
      unit: 'ms',
      met: start.status === 'ok' ? start.cold.median < AIMS.coldStartMs : null,
    },
    {
      name: `PostgreSQL read p99 (list ${config.tasks} tasks, ${config.clients} clients)`,
      target: `< ${AIMS.postgresReadP99Ms} ms`,
      actual: postgresList,
      unit: 'ms',
      met: postgresList === null ? null : postgresList < AIMS.postgresReadP99Ms,
    },
  ];
  if (postgres?.status === 'ok') {
    const serial = postgres.scenarios.listSerial.latency.p99;
    aims.push({
      name: `PostgreSQL read p99 (list ${config.tasks} tasks, 1 client; for reference)`,
      target: `< ${AIMS.postgresReadP99Ms} ms`,
      actual: serial,
      unit: 'ms',
      met: serial < AIMS.postgresReadP99Ms,
    });
  }
  return { start, databases, aims: aims.map((aim) => ({ ...aim, part: 'foundation' })) };
}

function printFoundation({ start, databases }: FoundationResult): void {
  if (start.status === 'ok') {
    console.log(
      `\nStart-up, PGlite, fresh AUTOCODER_DATA_DIR (cold) then the same one (warm), ` +
        `${start.cold.runs.length} runs${start.note ? ` (${start.note})` : ''}`,
    );
    console.log(
      table(
        ['', 'min', 'median', 'max', 'runs'],
        [
          [
            'cold start',
            ms(start.cold.min),
            ms(start.cold.median),
            ms(start.cold.max),
            start.cold.runs.join(', '),
          ],
          [
            'warm restart',
            ms(start.warm.min),
            ms(start.warm.median),
            ms(start.warm.max),
            start.warm.runs.join(', '),
          ],
        ],
      ),
    );
  } else {
    console.log(`\nStart-up: skipped (${start.reason})`);
  }
  for (const result of databases) {
    const title = result.database === 'pglite' ? 'PGlite' : 'PostgreSQL';
    if (result.status === 'skipped') {
      console.log(`\n${title}: skipped — ${result.reason}`);
      continue;
    }
    console.log(
      `\n${title} — node dist/server/main.js (started in ${ms(result.serverStartMs)} ms), ${config.tasks} tasks, ` +
        `list response ${int(result.listResponseBytes)} bytes`,
    );
    console.log(scenarioTable(result));
    for (const s of [result.seed, ...Object.values(result.scenarios)]) {
      if (s.errors) console.log(`  ${s.name}: ${s.errors} errors ${JSON.stringify(s.errorKinds)}`);
      if (s.capped)
        console.log(`  ${s.name}: stopped by the ${config.timeCapMs / 1000} s cap after ${s.ok} requests`);
    }
    if (!result.rateLimitLifted) {
      console.log(
        `  login: ${result.scenarios.login.rateLimited} answers were 429 (rate limited) — counted apart, not in the latencies`,
      );
    }
    for (const entry of result.serverLog.slice(0, 5))
      console.log(`  server log ×${entry.count}: ${entry.line}`);
  }
}

interface PipelinePartResult {
  databases: PipelineDbResult[];
  aims: Aim[];
}

async function runPipelinePart(): Promise<PipelinePartResult> {
  const { runs, clientsPerTask, timeCapMs } = pipelineSettings;
  console.log(
    `\n=== Pipeline: ${runs} runs at once on the simulator at full speed, ${runs * clientsPerTask} SSE clients ` +
      `(${clientsPerTask} per task); ${timeCapMs / 1000} s cap per database`,
  );
  const databases = await eachDatabase<PipelineDbResult>(
    (kind, databaseUrl) => benchPipeline(kind, databaseUrl, pipelineSettings),
    (database, reason) => ({ status: 'skipped', database, reason }),
  );
  return {
    databases,
    aims: pipelineAims(databases, pipelineSettings).map((aim) => ({ ...aim, part: 'pipeline' })),
  };
}

async function runSseFloodPart(): Promise<{ stages: SseFloodStage[]; aims: Aim[] }> {
  console.log('\n=== SSE flood: 10 runs at once, 12-character deltas at full speed, ~25 KB per coder answer');
  const perDatabase = await eachDatabase<SseFloodStage[]>(
    (kind, databaseUrl) => benchSseFlood(kind, databaseUrl),
    (database, reason) => [{ clientsPerTask: 0, result: { status: 'skipped', database, reason } }],
  );
  const stages = perDatabase.flat();
  return { stages, aims: sseFloodAims(stages).map((aim) => ({ ...aim, part: 'sse-flood' as const })) };
}

interface BoardPartResult {
  databases: BoardDbResult[];
  aims: Aim[];
}

async function runBoardPart(): Promise<BoardPartResult> {
  console.log(
    `\n=== Board: ${boardSettings.tasks} tasks listed by ${boardSettings.clients} clients; ` +
      `${boardSettings.requests} requests per scenario, ${boardSettings.timeCapMs / 1000} s cap`,
  );
  const databases = await eachDatabase<BoardDbResult>(
    (kind, databaseUrl) => benchBoard(kind, databaseUrl, boardSettings),
    (database, reason) => ({ status: 'skipped', database, reason }),
  );
  return { databases, aims: boardAims(databases, boardSettings) };
}

interface DiffPartResult {
  databases: DiffDbResult[];
  aims: Aim[];
}

async function runDiffPart(): Promise<DiffPartResult> {
  console.log(
    `\n=== Diff: a run whose branch touches ${diffSettings.files} files with ${diffSettings.lines} changed lines, ` +
      `read by ${diffSettings.clients} clients`,
  );
  const databases = await eachDatabase<DiffDbResult>(
    (kind, databaseUrl) => benchDiff(kind, databaseUrl, diffSettings),
    (database, reason) => ({ status: 'skipped', database, reason }),
  );
  return { databases, aims: diffAims(databases, diffSettings) };
}

const graphSettings = graphConfig();

async function runGraphPart(): Promise<{ result: GraphResult; aims: Aim[] }> {
  console.log(
    `\n=== Graph: ${graphSettings.files} generated TypeScript files, ${graphSettings.coldRuns} cold builds, ` +
      `${graphSettings.updates} one-file updates, madge and dependency-cruiser on the same files`,
  );
  const result = await benchGraph(graphSettings);
  return { result, aims: graphAims(result) };
}

const coordinationSettings = coordinationConfig();
/** The settings as the results file records them: the Redis URL without a password. */
const coordinationConfigForJson = () => ({
  ...coordinationSettings,
  redisUrl: coordinationSettings.redisUrl ? redactUrl(coordinationSettings.redisUrl) : null,
});

async function runCoordinationPart(): Promise<{ result: CoordinationPartResult; aims: Aim[] }> {
  const stores: StoreKind[] = coordinationSettings.redisUrl ? ['memory', 'redis'] : ['memory'];
  console.log(
    `\n=== Coordination: ${coordinationSettings.agents} agents calling check_status / post_status over REST and MCP; ` +
      `lock stores: ${stores.join(', ')}${coordinationSettings.redisUrl ? '' : ' (set REDIS_URL for Redis)'}`,
  );
  const direct = [];
  for (const store of stores) direct.push(await benchStoreDirect(store, coordinationSettings));
  const perDatabase = await eachDatabase<CoordinationServerResult[]>(
    async (kind, databaseUrl) => {
      const results: CoordinationServerResult[] = [];
      for (const store of stores) {
        console.log(`  ${store === 'memory' ? 'in-process' : 'Redis'} lock store`);
        results.push(await benchCoordinationServer(kind, databaseUrl, store, coordinationSettings));
      }
      return results;
    },
    (database, reason) => stores.map((store) => ({ status: 'skipped', database, store, reason })),
  );
  const result = { direct, servers: perDatabase.flat() };
  return { result, aims: coordinationAims(result, coordinationSettings) };
}

const servicesSettings = servicesConfig();

async function runServicesPart(): Promise<{ result: ServicesResult; aims: Aim[] }> {
  console.log(
    `\n=== Services: a service's answer directly, through its preview and through the path proxy, ` +
      `${servicesSettings.clients} clients, ${servicesSettings.requests} requests each`,
  );
  const result = await benchServices(servicesSettings);
  return { result, aims: servicesAims(result) };
}

interface PreviousResults {
  startedAt?: string;
  environment?: { commit?: string | null; dirty?: boolean | null; loadAverage?: number[] };
  config?: unknown;
  start?: unknown;
  databases?: unknown;
  pipeline?: unknown;
  board?: unknown;
  sseFlood?: unknown;
  diff?: unknown;
  graph?: unknown;
  coordination?: unknown;
  services?: unknown;
  aims?: Aim[];
  carriedOver?: Partial<Record<Part, unknown>>;
}

/** The previous results file (schema 1), or null when there is none or it cannot be read. */
async function previousResults(file: string): Promise<PreviousResults | null> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as PreviousResults & { schema?: number };
    return parsed.schema === 1 ? parsed : null;
  } catch {
    return null;
  }
}

/** Where figures kept from an earlier run came from. */
const earlierRun = (previous: PreviousResults) => ({
  startedAt: previous.startedAt ?? null,
  commit: previous.environment?.commit ?? null,
  dirty: previous.environment?.dirty ?? null,
  loadAverage: previous.environment?.loadAverage ?? null,
});

function formatActual(aim: Aim): string {
  if (aim.actual === null || Number.isNaN(aim.actual)) return '–';
  return aim.unit === 'ms' ? `${ms(aim.actual)} ms` : `${aim.actual.toFixed(1)} ${aim.unit}`;
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const wall = performance.now();
  const env = environment();
  console.log(
    `AutoCoder bench (${parts.join(' + ')}) — ${env.commit ?? 'no git'}${env.dirty ? ' (uncommitted changes)' : ''}, ` +
      `Node ${env.node}, ${env.cpus} × ${env.cpuModel}, load average ${env.loadAverage.join(' ')}`,
  );

  try {
    if (await ensureBuilt(root)) console.log('built the app (dist was missing or older than the sources)');
  } catch (error) {
    // The sources may be mid-edit; an older build still serves the API the load part measures.
    if (!existsSync(path.join(root, 'dist', 'server', 'main.js'))) throw error;
    console.log(`could not rebuild, so the bench uses the existing dist/: ${firstLine(error)}`);
  }

  const foundation = parts.includes('foundation') ? await runFoundation() : null;
  const pipeline = parts.includes('pipeline') ? await runPipelinePart() : null;
  const sseFlood = parts.includes('sse-flood') ? await runSseFloodPart() : null;
  const board = parts.includes('board') ? await runBoardPart() : null;
  const diff = parts.includes('diff') ? await runDiffPart() : null;
  const graph = parts.includes('graph') ? await runGraphPart() : null;
  const coordination = parts.includes('coordination') ? await runCoordinationPart() : null;
  const services = parts.includes('services') ? await runServicesPart() : null;
  const aims = [
    ...(foundation?.aims ?? []),
    ...(pipeline?.aims ?? []),
    ...(sseFlood?.aims ?? []),
    ...(board?.aims ?? []),
    ...(diff?.aims ?? []),
    ...(graph?.aims ?? []),
    ...(coordination?.aims ?? []),
    ...(services?.aims ?? []),
  ];

  // --- report
  console.log('\n================================== results ==================================');
  if (foundation) printFoundation(foundation);
  if (pipeline) {
    if (foundation) console.log('\n--- Pipeline');
    for (const result of pipeline.databases) printPipeline(result, pipelineSettings);
  }
  if (sseFlood) {
    console.log('\n--- SSE flood');
    printSseFlood(sseFlood.stages);
  }
  if (board) {
    console.log('\n--- Board');
    for (const result of board.databases) printBoard(result, boardSettings);
  }
  if (diff) {
    console.log('\n--- Diff');
    for (const result of diff.databases) printDiff(result, diffSettings);
  }
  if (graph) {
    console.log('\n--- Graph');
    printGraph(graph.result);
  }
  if (coordination) {
    console.log('\n--- Coordination');
    printCoordination(coordination.result, coordinationSettings);
  }
  if (services) {
    console.log('\n--- Services');
    printServices(services.result, servicesSettings);
  }
  console.log('\nAims');
  console.log(
    table(
      ['aim', 'target', 'actual', 'verdict'],
      aims.map((aim) => [
        aim.name,
        aim.target,
        formatActual(aim),
        aim.met === null ? 'not measured' : aim.met ? 'met' : 'NOT MET',
      ]),
    ),
  );

  // A run of one part keeps the other part's figures from the previous file, saying when they were taken.
  const resultsDir = path.join(root, 'bench', 'results');
  const resultsFile = path.join(resultsDir, 'latest.json');
  const previous =
    foundation && pipeline && sseFlood && board && diff && graph && coordination && services
      ? null
      : await previousResults(resultsFile);
  const keepFoundation = !foundation && previous?.start !== undefined;
  const keepPipeline = !pipeline && previous?.pipeline !== undefined;
  const keepSseFlood = !sseFlood && previous?.sseFlood !== undefined;
  const keepBoard = !board && previous?.board !== undefined;
  const keepDiff = !diff && previous?.diff !== undefined;
  const keepGraph = !graph && previous?.graph !== undefined;
  const keepCoordination = !coordination && previous?.coordination !== undefined;
  const keepServices = !services && previous?.services !== undefined;
  const kept: Record<Part, boolean> = {
    foundation: keepFoundation,
    pipeline: keepPipeline,
    'sse-flood': keepSseFlood,
    board: keepBoard,
    diff: keepDiff,
    graph: keepGraph,
    coordination: keepCoordination,
    services: keepServices,
  };
  const keptAims = (previous?.aims ?? []).filter((aim) => kept[aim.part ?? 'foundation']);
  const result = {
    schema: 1,
    startedAt: startedAt.toISOString(),
    durationMs: round(performance.now() - wall, 0),
    /** The parts this run made; see `carriedOver` for figures kept from an earlier run. */
    parts,
    environment: { ...env, loadAverageAtEnd: os.loadavg().map((value) => round(value, 2)) },
    config:
      keepFoundation && previous?.config
        ? previous.config
        : {
            clients: config.clients,
            tasks: config.tasks,
            seedConcurrency: config.seedConcurrency,
            loginRequests: config.loginRequests,
            listRequests: config.listRequests,
            moveRequests: config.moveRequests,
            serialRequests: config.serialRequests,
            timeCapMs: config.timeCapMs,
            startRuns: config.startRuns,
            postgresUrl: redactUrl(config.postgresUrl),
          },
    ...(foundation
      ? {
          start: foundation.start,
          databases: Object.fromEntries(foundation.databases.map((entry) => [entry.database, entry])),
        }
      : keepFoundation
        ? { start: previous?.start, databases: previous?.databases }
        : {}),
    ...(pipeline
      ? {
          pipeline: {
            config: { ...pipelineSettings, simulatorDelayMs: 0 },
            databases: Object.fromEntries(pipeline.databases.map((entry) => [entry.database, entry])),
          },
        }
      : keepPipeline
        ? { pipeline: previous?.pipeline }
        : {}),
    ...(sseFlood ? { sseFlood: sseFlood.stages } : keepSseFlood ? { sseFlood: previous?.sseFlood } : {}),
    ...(board
      ? {
          board: {
            config: boardSettings,
            databases: Object.fromEntries(board.databases.map((entry) => [entry.database, entry])),
          },
        }
      : keepBoard
        ? { board: previous?.board }
        : {}),
    ...(diff
      ? {
          diff: {
            config: diffSettings,
            databases: Object.fromEntries(diff.databases.map((entry) => [entry.database, entry])),
          },
        }
      : keepDiff
        ? { diff: previous?.diff }
        : {}),
    ...(graph
      ? { graph: { config: graphSettings, ...graph.result } }
      : keepGraph
        ? { graph: previous?.graph }
        : {}),
    ...(coordination
      ? { coordination: { config: coordinationConfigForJson(), ...coordination.result } }
      : keepCoordination
        ? { coordination: previous?.coordination }
        : {}),
    ...(services
      ? { services: { config: servicesSettings, ...services.result } }
      : keepServices
        ? { services: previous?.services }
        : {}),
    aims: [...aims, ...keptAims],
    ...(previous &&
    (keepFoundation ||
      keepPipeline ||
      keepSseFlood ||
      keepBoard ||
      keepDiff ||
      keepGraph ||
      keepCoordination ||
      keepServices)
      ? {
          carriedOver: Object.fromEntries(
            PARTS.filter((part) => kept[part]).map((part) => [
              part,
              previous.carriedOver?.[part] ?? earlierRun(previous),
            ]),
          ),
        }
      : {}),
  };
  await mkdir(resultsDir, { recursive: true });
  await writeFile(resultsFile, formatJson(result));
  console.log(`\nwrote bench/results/latest.json in ${Math.round((performance.now() - wall) / 1000)} s`);
  console.log(`BENCH_RESULT ${JSON.stringify(result)}`);
  if (pipeline?.databases.some((entry) => entry.status === 'error')) process.exitCode = 1;
  if (sseFlood?.stages.some((stage) => stage.result.status === 'error')) process.exitCode = 1;
}

process.on('exit', cleanupSync);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping the servers and cleaning up…`);
    void cleanup().finally(() => process.exit(130));
  });
}

try {
  await main();
} catch (error) {
  console.error(`\nbench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
