// The coordination part of `npm run bench` (`npm run bench -- coordination`): 50 agents, each with its
// own token, calling check_status and post_status (WRITING, then OPEN) on their own files and a shared
// one, over REST and over MCP (the official SDK's client, streamable HTTP), against the real server on
// each lock store (in-process; Redis when REDIS_URL is set) and each database; and the lock stores
// themselves, called directly (no HTTP).
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { Health } from '../src/contracts/health.js';
import { git } from '../src/server/lib/git.js';
import { type AgentCalls, mcpAgent, mcpWireAgent, restAgent } from './coordination-agents.js';
import {
  CALLS,
  type Call,
  type CoordinationConfig,
  coordinationRepository,
  type StoreKind,
  type TransportResult,
} from './coordination-config.js';
import { runPaced, runTransport, type Workload } from './coordination-load.js';
import { baseEnv, cpuProfileArgs, RATE_LIMIT_ENV, summarizeLog } from './lib/common.js';
import { BenchClient, registerWithProject } from './lib/http.js';
import { redactUrl } from './lib/postgres.js';
import { freePort, makeTempDir, removeTempDir, spawnGroup, waitHealthy } from './lib/processes.js';
import { round } from './lib/stats.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export type CoordinationServerResult =
  | {
      status: 'ok';
      database: 'pglite' | 'postgres';
      store: StoreKind;
      postgresUrl?: string;
      transports: TransportResult[];
      loadAverage: { start: number[]; end: number[] };
      serverLog: { line: string; count: number }[];
    }
  | { status: 'skipped'; database: 'pglite' | 'postgres'; store: StoreKind; reason: string };

const loadAverage = () => os.loadavg().map((value) => round(value, 2));
const PASSWORD = 'correct horse battery staple';

/** Commits the agents' repository into the project's own repository (in the server's data dir). */
async function seedRepository(repoPath: string, config: CoordinationConfig): Promise<string> {
  const { mkdir, writeFile } = await import('node:fs/promises');
  for (const [file, content] of coordinationRepository(config)) {
    await mkdir(path.dirname(path.join(repoPath, file)), { recursive: true });
    await writeFile(path.join(repoPath, file), content);
  }
  const identity = ['-c', 'user.name=Bench', '-c', 'user.email=bench@localhost'];
  await git(['add', '-A'], { cwd: repoPath });
  await git([...identity, 'commit', '--quiet', '-m', 'The agents’ modules'], { cwd: repoPath });
  return (await git(['rev-parse', 'HEAD'], { cwd: repoPath })).stdout.toString().trim();
}

/** The server on one database and one lock store, driven over REST then over MCP. */
export async function benchCoordinationServer(
  database: 'pglite' | 'postgres',
  databaseUrl: string | undefined,
  store: StoreKind,
  config: CoordinationConfig,
): Promise<CoordinationServerResult> {
  if (store === 'redis' && !config.redisUrl) {
    return { status: 'skipped', database, store, reason: 'REDIS_URL is not set' };
  }
  const dataDir = await makeTempDir(`autocoder-bench-coord-${database}-${store}-`);
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...baseEnv(),
    PORT: String(port),
    HOST: '127.0.0.1',
    AUTOCODER_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    [RATE_LIMIT_ENV]: '1000000',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  };
  delete env.REDIS_URL;
  if (store === 'redis' && config.redisUrl) env.REDIS_URL = config.redisUrl;
  const since = performance.now();
  const server = spawnGroup(process.execPath, [...cpuProfileArgs(), 'dist/server/main.js'], root, env);
  const agent = new http.Agent({ keepAlive: true, maxSockets: config.agents + 1, timeout: 4_000 });
  const agents: AgentCalls[] = [];
  try {
    const health = await waitHealthy(port, server, since, { intervalMs: 20 });
    const served = (JSON.parse(health.body) as Health).database;
    if (served !== database) throw new Error(`the server runs on ${served}, expected ${database}`);

    const owner = new BenchClient(agent, port);
    const projectId = await registerWithProject(
      owner,
      `coord-${randomBytes(4).toString('hex')}@example.com`,
      PASSWORD,
    );
    const head = await seedRepository(path.join(dataDir, 'repos', projectId), config);
    const tokens: string[] = [];
    for (let i = 0; i < config.agents; i++) {
      const created = await owner.json<{ token: string }>('POST', '/api/tokens', { name: `Agent ${i}` }, 201);
      tokens.push(created.token);
    }
    const work: Workload = { repoUrl: `http://127.0.0.1:${port}/git/${projectId}.git`, head, config };
    const start = loadAverage();
    const transports: TransportResult[] = [];

    if (config.transports.includes('rest')) {
      const rest = tokens.map((token) => restAgent(port, token));
      try {
        const closed = await runTransport('rest', rest, work, server.pid);
        transports.push({ ...closed, paced: await runPaced(rest, work, server.pid) });
      } finally {
        await Promise.all(rest.map((one) => one.close()));
      }
      report(transports.at(-1));
    }
    if (config.transports.includes('mcp')) {
      const connect = config.mcpClient === 'sdk' ? mcpAgent : mcpWireAgent;
      for (const [i, token] of tokens.entries()) agents.push(await connect(port, token, `bench-agent-${i}`));
      const closed = await runTransport('mcp', agents, work, server.pid);
      transports.push({ ...closed, paced: await runPaced(agents, work, server.pid) });
      report(transports.at(-1));
    }

    return {
      status: 'ok',
      database,
      store,
      ...(databaseUrl ? { postgresUrl: redactUrl(databaseUrl) } : {}),
      transports,
      loadAverage: { start, end: loadAverage() },
      serverLog: summarizeLog(server.output()),
    };
  } finally {
    await Promise.all(agents.map((calls) => calls.close().catch(() => undefined)));
    agent.destroy();
    await server.stop();
    await removeTempDir(dataDir);
  }
}

function report(result: TransportResult | undefined) {
  if (!result) return;
  const call = (name: Call) => `${name} p50 ${result.calls[name].p50} / p99 ${result.calls[name].p99} ms`;
  console.log(
    `  ${result.transport.padEnd(4)} ${result.cycles} cycles, ${result.callsPerSecond} calls/s; ${CALLS.map(call).join('; ')}` +
      (result.serverCpuMsPerCall != null ? `; server CPU ${result.serverCpuMsPerCall} ms/call` : '') +
      (result.benchCpuMsPerCall != null ? `; load generator CPU ${result.benchCpuMsPerCall} ms/call` : '') +
      (result.errors ? `; ${result.errors} errors ${JSON.stringify(result.errorKinds)}` : ''),
  );
  const paced = result.paced;
  if (paced)
    console.log(
      `  ${result.transport.padEnd(4)} open loop at ${paced.ratePerSecond} calls/s: ${CALLS.map((name) => `${name} p50 ${paced.calls[name].p50} / p99 ${paced.calls[name].p99} ms`).join('; ')}` +
        (paced.errors ? `; ${paced.errors} errors ${JSON.stringify(paced.errorKinds)}` : ''),
    );
}
