// The foundation part's load, once per database: `node dist/server/main.js` seeded with BENCH_TASKS
// tasks through the API, then sign-in, the board list (50 clients and 1) and card moves.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { Task, TaskCategory, TaskPriority, TaskStatus } from '../src/contracts/tasks.js';
import { summarizeLog } from './lib/common.js';
import { config, type DbKind } from './lib/databases.js';
import { int, ms } from './lib/format.js';
import { BenchClient, registerWithProject } from './lib/http.js';
import { runScenario, type ScenarioResult } from './lib/load.js';
import { redactUrl, settleDatabase } from './lib/postgres.js';
import { RawHttpConnection } from './lib/raw-http.js';
import { startBenchServer } from './lib/server.js';
import { round } from './lib/stats.js';

const PASSWORD = 'correct horse battery staple';

interface SeedTask {
  id: string;
  status: TaskStatus;
}

export type DatabaseResult =
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

export async function benchServer(kind: DbKind, databaseUrl: string | undefined): Promise<DatabaseResult> {
  const bench = await startBenchServer({ kind, databaseUrl });
  const { server, port } = bench;
  // Idle sockets are dropped after 4 s, before the server's 5 s keep-alive timeout can close one
  // under a request just being sent (which would show as ECONNRESET).
  const agent = new http.Agent({
    keepAlive: true,
    maxSockets: Math.max(config.clients, config.seedConcurrency),
    timeout: 4_000,
  });
  let connections: RawHttpConnection[] = [];
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
    if (kind === 'postgres' && databaseUrl) await settleDatabase(databaseUrl);

    // --- (a) login: every client signs in as its own account. Logins count per account and address
    // before the password is verified, so 50 parallel logins to one account would mostly be refused (429).
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
    // On bare keep-alive sockets, one per client (lib/raw-http.ts), with each client's session.
    connections = clients.map(() => new RawHttpConnection(port));
    const listConnections = connections;
    const sendList = async (worker: number) => {
      const connection = listConnections[worker];
      if (!connection) throw new Error(`no connection ${worker}`);
      const headers = { ...clientOf(worker).headers('GET', false), 'accept-encoding': 'gzip' };
      return (await connection.request('GET', listPath, headers)).status;
    };
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
    for (const connection of connections) connection.close();
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
