// The pipeline part's two processes: the simulator and the server under test.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { Health } from '../../src/contracts/health.js';
import { baseEnv, cpuProfileArgs, RATE_LIMIT_ENV } from '../lib/common.js';
import { ms } from '../lib/format.js';
import { freePort, type Spawned, spawnGroup, waitHealthy } from '../lib/processes.js';
import type { PipelineConfig } from './config.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** /api/metrics answers only the operator's bearer token. */
export const METRICS_TOKEN = randomBytes(24).toString('hex');

/** The simulator runs in its own process, as a real provider would: its CPU is not the server's. */
export async function startSimulator(): Promise<{ simulator: Spawned; simulatorPort: number }> {
  const simulatorPort = await freePort();
  const simulator = spawnGroup(process.execPath, ['scripts/simulator.mjs'], root, {
    ...baseEnv(),
    SIMULATOR_PORT: String(simulatorPort),
    SIMULATOR_CHUNK_DELAY_MS: '0',
  });
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
  return { simulator, simulatorPort };
}

export interface ServerOptions {
  kind: 'pglite' | 'postgres';
  databaseUrl: string | undefined;
  port: number;
  dataDir: string;
  simulatorPort: number;
  config: PipelineConfig;
}

/** Spawns the built server (`dist/server/main.js`) on 127.0.0.1; `since` is when it was spawned. */
export function spawnServer(options: ServerOptions): { server: Spawned; since: number } {
  const { databaseUrl, port, dataDir, simulatorPort, config } = options;
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
  const since = performance.now();
  const server = spawnGroup(process.execPath, [...cpuProfileArgs(), 'dist/server/main.js'], root, env);
  return { server, since };
}

/** Waits for the server's first healthy answer and checks it runs on the database asked for. */
export async function waitForServer(options: ServerOptions, server: Spawned, since: number) {
  const health = await waitHealthy(options.port, server, since, { intervalMs: 20 });
  const served = (JSON.parse(health.body) as Health).database;
  if (served !== options.kind) throw new Error(`the server runs on ${served}, expected ${options.kind}`);
  console.log(
    `  server up in ${ms(health.ms)} ms on port ${options.port} (simulator in its own process, no delay)`,
  );
  return health;
}
