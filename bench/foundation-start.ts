// The foundation part's start-up: `npm start` → first 200 of /api/health, cold (a fresh
// AUTOCODER_DATA_DIR) then warm (the same one again), BENCH_START_RUNS times.
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { Health } from '../src/contracts/health.js';
import { baseEnv, firstLine } from './lib/common.js';
import { config } from './lib/databases.js';
import { ms } from './lib/format.js';
import {
  ensureBuilt,
  freePort,
  installIsStale,
  makeTempDir,
  removeTempDir,
  spawnGroup,
  waitHealthy,
} from './lib/processes.js';
import { median, round } from './lib/stats.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface StartFigures {
  runs: number[];
  min: number;
  median: number;
  max: number;
}

export type StartResult =
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

export async function measureStart(): Promise<StartResult> {
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
