// The services part of `npm run bench` (`npm run bench -- services`): a workspace service's small
// answer fetched directly from its port, through its subdomain preview and through the path proxy,
// by the same closed-loop clients, in one run; the proxy's throughput and added latency as ratios
// and differences against direct (issue 10's aims: ≥ 70 % of direct throughput, < 2 ms added p99).
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { Service, ServicePreview, WorkspaceList } from '../src/contracts/services.js';
import { baseEnv, cpuProfileArgs, intEnv, RATE_LIMIT_ENV, summarizeLog } from './lib/common.js';
import { int, ms } from './lib/format.js';
import { BenchClient, httpRequest, registerWithProject } from './lib/http.js';
import { cpuUsPerRequest, runInterleaved, runPaced } from './lib/interleave.js';
import type { ScenarioResult } from './lib/load.js';
import { startMinimalProxy } from './lib/minimal-http-proxy.js';
import { freePort, makeTempDir, removeTempDir, spawnGroup, waitHealthy } from './lib/processes.js';
import { getService, serviceAddress } from './lib/service-address.js';
import { type LatencySummary, round } from './lib/stats.js';
import { startRelay } from './lib/tcp-relay.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const SERVICES_AIMS = {
  throughputRatio: 0.7,
  addedP99Ms: 2,
  shareOfMinimal: 0.85,
  overMinimalP99Ms: 1,
};

export interface ServicesBenchConfig {
  clients: number;
  requests: number;
  timeCapMs: number;
  /** Direct, preview and path take turns this many times, each with its share of the requests. */
  rounds: number;
  /** The open-loop part: requests per second, and requests per way (in four interleaved rounds). */
  pacedRate: number;
  pacedRequests: number;
}

export function servicesConfig(): ServicesBenchConfig {
  return {
    clients: intEnv('BENCH_SERVICES_CLIENTS', 20),
    requests: intEnv('BENCH_SERVICES_REQUESTS', 30_000),
    timeCapMs: intEnv('BENCH_SERVICES_TIME_CAP_MS', 60_000),
    rounds: Math.max(1, intEnv('BENCH_SERVICES_ROUNDS', 3)),
    pacedRate: intEnv('BENCH_SERVICES_PACED_RATE', 200),
    pacedRequests: intEnv('BENCH_SERVICES_PACED_REQUESTS', 2000),
  };
}

export type ServicesResult =
  | {
      status: 'ok';
      scenarios: ScenarioResult[];
      /**
       * Through the proxy against direct, per way in; for reference, `relay` is a raw TCP relay (no
       * HTTP at all), the least any proxy written in Node costs on this machine, and `minimal` a
       * minimal HTTP proxy (heads read and rewritten, nothing checked), the least one that reads HTTP does.
       */
      ratios: { preview: ProxyCost; path: ProxyCost; relay: ProxyCost; minimal: ProxyCost };
      /** CPU per timed request, µs: AutoCoder's process, the service's, the load generator's. */
      cpuPerRequestUs: ServicesCpu;
      /** Open loop at a fixed rate below capacity: latencies, and what each proxy adds. */
      paced: PacedResult;
      loadAverage: { start: number[]; end: number[] };
      serverLog: { line: string; count: number }[];
    }
  | { status: 'error'; reason: string };

export type Way = 'direct' | 'preview' | 'path' | 'relay' | 'minimal';
export type ServicesCpu = Record<Way, { server: number; service: number; bench: number }>;
/** The proxies, and the references beside them (what any hop costs on the machine). */
type ThroughWay = 'preview' | 'path' | 'relay' | 'minimal';
interface PacedResult {
  ratePerSecond: number;
  errors: number;
  latency: Record<'direct' | ThroughWay, LatencySummary>;
  added: Record<ThroughWay, { addedP50Ms: number; addedP99Ms: number }>;
}

export interface ProxyCost {
  /** Requests per second through the proxy ÷ directly. */
  throughputRatio: number;
  /** p99 through the proxy − p99 directly, ms. */
  addedP99Ms: number;
  addedP50Ms: number;
}

const SERVICE = `#!/usr/bin/env node
//---
// name: Bench
// http: auto
//---
const body = JSON.stringify({ hello: 'world', padding: 'x'.repeat(64) });
require('node:http')
  .createServer((req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(body); })
  .listen(Number(process.env.PORT), '127.0.0.1');
`;

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, limitMs: number): Promise<T> {
  const deadline = performance.now() + limitMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (performance.now() > deadline) throw new Error(`gave up waiting: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * `sandbox`: how the server runs the service — `bwrap` (its own network namespace, reached through
 * its bridge: what a server with bubblewrap does now) or `host` (the host's network, reached on its
 * port: the data path every service had before issue 23, measured beside it in the same run).
 */
export async function benchServices(
  config: ServicesBenchConfig,
  sandbox: 'bwrap' | 'host' = 'bwrap',
): Promise<ServicesResult> {
  const dataDir = await makeTempDir('autocoder-bench-services-');
  // The server's TMPDIR, where a sandbox's run directory (and the bridge to its port) is made.
  const serverTmp = await makeTempDir('autocoder-bench-services-tmp-');
  const port = await freePort();
  const since = performance.now();
  const server = spawnGroup(process.execPath, [...cpuProfileArgs(), 'dist/server/main.js'], root, {
    ...baseEnv(),
    PORT: String(port),
    HOST: '127.0.0.1',
    AUTOCODER_DATA_DIR: dataDir,
    TMPDIR: serverTmp,
    LOG_LEVEL: 'warn',
    AUTOCODER_SANDBOX: sandbox,
    [RATE_LIMIT_ENV]: '1000000',
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: config.clients + 1, timeout: 4_000 });
  let relay: Awaited<ReturnType<typeof startRelay>> | undefined;
  let minimal: Awaited<ReturnType<typeof startMinimalProxy>> | undefined;
  try {
    await waitHealthy(port, server, since, { intervalMs: 20 });
    const owner = new BenchClient(agent, port);
    const projectId = await registerWithProject(
      owner,
      `svc-${randomBytes(4).toString('hex')}@example.com`,
      'bench-password-1',
    );
    const list = await owner.json<WorkspaceList>(
      'GET',
      `/api/projects/${projectId}/workspaces`,
      undefined,
      200,
    );
    const workspaceId = list.workspaces[0]?.id ?? '';
    const dir = path.join(dataDir, 'repos', projectId, '.discobot', 'services');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'bench'), SERVICE);
    await chmod(path.join(dir, 'bench'), 0o755);
    const api = `/api/workspaces/${workspaceId}/services/bench`;
    await owner.json('POST', `${api}/start`, undefined, 202);
    const running = await until(
      () => owner.json<Service>('GET', api, undefined, 200),
      (service) => service.status === 'running',
      60_000,
    );
    const servicePort = Number(running.http);
    const servicePid = Number(running.pid);

    const { url } = await owner.json<ServicePreview>('POST', `${api}/preview`, undefined, 200);
    const ticket = new URL(url);
    const previewHost = `${ticket.hostname}:${port}`;
    const redeemed = await httpRequest(false, port, 'GET', `${ticket.pathname}${ticket.search}`, {
      headers: { host: previewHost },
    });
    const previewCookie = (redeemed.headers['set-cookie']?.[0] ?? '').split(';')[0] ?? '';
    if (redeemed.status !== 302 || !previewCookie)
      throw new Error(`the preview ticket answered ${redeemed.status}`);

    const start = os.loadavg().map((value) => round(value, 2));
    const get = (targetPort: number, target: string, headers: Record<string, string>) => async () =>
      (await httpRequest(agent, targetPort, 'GET', target, { headers })).status;
    // Reached as AutoCoder's proxy reaches it (through its sandbox's bridge in bubblewrap), by
    // direct and the references alike.
    const service = await serviceAddress(serverTmp, servicePort);
    relay = await startRelay(service);
    minimal = await startMinimalProxy(service);
    const names = ['direct', 'preview', 'path', 'relay', 'minimal'] as const;
    // Direct, preview, path, then preview, path, direct…: a change of load during the run, and what
    // one way leaves behind for the next, fall on all three alike (lib/interleave.ts).
    const turns = [
      {
        name: 'direct',
        label: service.socketPath ? 'GET <service bridge>/' : 'GET 127.0.0.1:<service>/',
        send: () => getService(agent, service, '/'),
      },
      {
        name: 'preview',
        label: 'GET <ws>-svc-bench.localhost/ (cookie)',
        send: get(port, '/', { host: previewHost, cookie: previewCookie }),
      },
      {
        name: 'path',
        label: 'GET /api/workspaces/<ws>/services/bench/http/ (session)',
        send: get(port, `${api}/http/`, { cookie: owner.cookie }),
      },
      {
        name: 'relay',
        label: 'GET 127.0.0.1:<relay>/ (raw TCP relay, reference)',
        send: get(relay.port, '/', {}),
        serverPid: relay.spawned.pid,
      },
      {
        name: 'minimal',
        label: 'GET 127.0.0.1:<minimal>/ (minimal HTTP proxy, reference)',
        send: get(minimal.port, '/', {}),
        serverPid: minimal.spawned.pid,
      },
    ];
    const run = await runInterleaved(turns, { ...config, serverPid: server.pid, watchPid: servicePid });
    // Then at a fixed rate, well below capacity: what the proxy adds to one request.
    // The relay and the minimal proxy too: what one more hop of any kind adds on this machine.
    const paced = await runPaced(turns, {
      ratePerSecond: config.pacedRate,
      requests: config.pacedRequests,
    });
    const [pacedDirect, pacedPreview, pacedPath, pacedRelay, pacedMinimal] = paced.latencies as [
      LatencySummary,
      LatencySummary,
      LatencySummary,
      LatencySummary,
      LatencySummary,
    ];
    const pacedCost = (through: LatencySummary) => ({
      addedP50Ms: round(through.p50 - pacedDirect.p50, 2),
      addedP99Ms: round(through.p99 - pacedDirect.p99, 2),
    });
    const { scenarios } = run;
    for (const done of scenarios) {
      console.log(
        `  ${done.name.padEnd(8)} ${int(done.ok).padStart(6)} ok  p50 ${ms(done.latency.p50)} ms  p99 ${ms(done.latency.p99)} ms  ${int(done.throughput)} req/s${done.errors ? `  ${done.errors} errors ${JSON.stringify(done.errorKinds)}` : ''}`,
      );
    }
    const [direct, preview, pathProxy, relayed, minimalProxy] = scenarios as [
      ScenarioResult,
      ScenarioResult,
      ScenarioResult,
      ScenarioResult,
      ScenarioResult,
    ];
    const cost = (through: ScenarioResult): ProxyCost => ({
      throughputRatio: round(through.throughput / Math.max(direct.throughput, 1), 3),
      addedP99Ms: round(through.latency.p99 - direct.latency.p99, 2),
      addedP50Ms: round(through.latency.p50 - direct.latency.p50, 2),
    });
    const cpuPerRequestUs = Object.fromEntries(
      scenarios.map((s, index) => [
        names[index],
        {
          server: cpuUsPerRequest(s.serverCpuPercent, s),
          service: round(((run.watchedCpuMs[index] ?? 0) * 1000) / (s.requested + run.warmups), 0),
          bench: cpuUsPerRequest(s.benchCpuPercent, s),
        },
      ]),
    ) as ServicesCpu;
    await owner.json('POST', `${api}/stop`, undefined, 200);
    return {
      status: 'ok',
      scenarios,
      ratios: {
        preview: cost(preview),
        path: cost(pathProxy),
        relay: cost(relayed),
        minimal: cost(minimalProxy),
      },
      cpuPerRequestUs,
      paced: {
        ratePerSecond: config.pacedRate,
        errors: paced.errors,
        latency: {
          direct: pacedDirect,
          preview: pacedPreview,
          path: pacedPath,
          relay: pacedRelay,
          minimal: pacedMinimal,
        },
        added: {
          preview: pacedCost(pacedPreview),
          path: pacedCost(pacedPath),
          relay: pacedCost(pacedRelay),
          minimal: pacedCost(pacedMinimal),
        },
      },
      loadAverage: { start, end: os.loadavg().map((value) => round(value, 2)) },
      serverLog: summarizeLog(server.output()),
    };
  } catch (error) {
    return { status: 'error', reason: error instanceof Error ? error.message : String(error) };
  } finally {
    agent.destroy();
    await relay?.spawned.stop();
    await minimal?.spawned.stop();
    await server.stop();
    await removeTempDir(dataDir);
    await removeTempDir(serverTmp);
  }
}
