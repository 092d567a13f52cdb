// The server under test, as the load parts start it: `node dist/server/main.js` on 127.0.0.1.
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { Health } from '../../src/contracts/health.js';
import { baseEnv, cpuProfileArgs, RATE_LIMIT_ENV } from './common.js';
import { freePort, makeTempDir, removeTempDir, type Spawned, spawnGroup, waitHealthy } from './processes.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface BenchServerOptions {
  kind: 'pglite' | 'postgres';
  /** PostgreSQL's URL (`kind: 'postgres'`); PGlite in the data dir otherwise. */
  databaseUrl: string | undefined;
  /** Names the temp data dir: `autocoder-bench-<name>-<kind>-…` (none: `autocoder-bench-<kind>-…`). */
  name?: string;
  /** Settings of this part on top of the common ones. */
  env?: NodeJS.ProcessEnv;
  /** Honour BENCH_CPU_PROF (a V8 CPU profile of the server). */
  cpuProfile?: boolean;
}

export interface BenchServer {
  server: Spawned;
  port: number;
  /** The server's AUTOCODER_DATA_DIR (repositories, worktrees, PGlite). */
  dataDir: string;
  /** From spawning to the first 200 of /api/health. */
  startMs: number;
  /** Stops the server's process group and removes its data dir. */
  stop(): Promise<void>;
}

/**
 * Spawns the built server with a free `PORT`, a temp `AUTOCODER_DATA_DIR`, `LOG_LEVEL=warn`, the
 * sign-in rate limit lifted and `DATABASE_URL` for PostgreSQL, then waits for its first healthy
 * answer and checks it runs on the database asked for. On any failure it is stopped and its data
 * dir removed before the error is thrown.
 */
export async function startBenchServer(options: BenchServerOptions): Promise<BenchServer> {
  const { kind, databaseUrl } = options;
  const dataDir = await makeTempDir(`autocoder-bench-${options.name ? `${options.name}-` : ''}${kind}-`);
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...baseEnv(),
    PORT: String(port),
    HOST: '127.0.0.1',
    AUTOCODER_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    [RATE_LIMIT_ENV]: '1000000',
    ...options.env,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  };
  const since = performance.now();
  const args = [...(options.cpuProfile ? cpuProfileArgs() : []), 'dist/server/main.js'];
  const server = spawnGroup(process.execPath, args, root, env);
  const stop = async () => {
    await server.stop();
    await removeTempDir(dataDir);
  };
  try {
    const health = await waitHealthy(port, server, since, { intervalMs: 20 });
    const served = (JSON.parse(health.body) as Health).database;
    if (served !== kind) throw new Error(`the server runs on ${served}, expected ${kind}`);
    return { server, port, dataDir, startMs: health.ms, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
