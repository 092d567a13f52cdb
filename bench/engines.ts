// The engines part: AutoCoder's own overhead around a coder step per engine (autocoder, claude-code,
// codex), as a person watching the run meets it — from the step's start to its first event in the
// browser, each event's delay to the browser, the step's wall time beside the engine process's own,
// and Cancel to no engine process left. One server, one machine, the engines interleaved, one run
// at a time. See bench/README.md (Engines).
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EnginesResponse } from '../src/contracts/engines.js';
import { findBwrap } from '../src/server/modules/sandbox/sandbox-mode.js';
import {
  ALL_ENGINES,
  type BenchEngine,
  type CancelRecord,
  type EngineFigures,
  type ExternalBenchEngine,
  figuresOf,
  isCoderTimeline,
  type Received,
  type RunRecord,
  stepsOf,
} from './engines-analysis.js';
import { cancelMidStep } from './engines-cancel.js';
import { type Ground, newTask, startRun, TASK, usableEngines, waitEnd, watchTask } from './engines-client.js';
import { EngineWatch } from './engines-procs.js';
import { firstLine, intEnv, schedStatMs } from './lib/common.js';
import { BenchClient, registerWithProject } from './lib/http.js';
import { startBenchServer } from './lib/server.js';
import { round, summarize } from './lib/stats.js';
import { startSimulator } from './pipeline/processes.js';

export interface EnginesConfig {
  /** Runs per engine (each with the simulator's subtasks: one coder step each). */
  runs: number;
  /** Untimed rounds first (one run per engine each): the server's code paths warm, as in the other parts. */
  warmup: number;
  engines: BenchEngine[];
  /** How often /proc is scanned for the engine's processes during a run. */
  scanMs: number;
  /** A run not ended by then is cancelled and counted as `timeout`. */
  runTimeoutMs: number;
  /** One step per external engine cancelled mid-command. */
  cancel: boolean;
  /** The simulated engine's slow command (`engine-sleep`) in the cancelled step, seconds. */
  sleepSeconds: number;
}

export function enginesConfig(): EnginesConfig {
  const named = (process.env.BENCH_ENGINES ?? ALL_ENGINES.join(','))
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = named.filter((name) => !(ALL_ENGINES as readonly string[]).includes(name));
  if (unknown.length) throw new Error(`BENCH_ENGINES: unknown engine ${unknown.join(', ')}`);
  return {
    runs: intEnv('BENCH_ENGINES_RUNS', 10),
    warmup: intEnv('BENCH_ENGINES_WARMUP', 1),
    engines: ALL_ENGINES.filter((engine) => named.includes(engine)),
    scanMs: intEnv('BENCH_ENGINES_SCAN_MS', 20),
    runTimeoutMs: intEnv('BENCH_ENGINES_RUN_TIMEOUT_S', 120) * 1000,
    cancel: intEnv('BENCH_ENGINES_CANCEL', 1) > 0,
    sleepSeconds: 30,
  };
}

export interface EnginesResult {
  serverStartMs: number;
  sandbox: string;
  engines: EngineFigures[];
  runs: RunRecord[];
  bench: {
    /** How often /proc was scanned during every run. */
    scanMs: number;
    /** CPU one /proc scan cost this process. */
    scanCpuMs: number | null;
  };
  loadAverage: { before: number[]; after: number[] };
  wallS: number;
}

const PASSWORD = 'correct horse battery staple';

/**
 * The bench's own event-loop lag: a 10 ms timer's lateness, sampled into `samples` while started
 * (monitorEventLoopDelay would count the pause between two runs as one long delay).
 */
function loopLag(samples: number[]) {
  let timer: NodeJS.Timeout | undefined;
  return {
    start() {
      let last = performance.now();
      timer = setInterval(() => {
        const now = performance.now();
        samples.push(Math.max(0, now - last - 10));
        last = now;
      }, 10);
    },
    stop() {
      clearInterval(timer);
    },
  };
}

interface ScanCost {
  cpuMs: number;
  scans: number;
}

/** One run to its end, watched over SSE, its engine's processes scanned for in /proc. */
async function oneRun(
  ground: Ground,
  engine: BenchEngine,
  round: number,
  config: EnginesConfig,
  scanToken: string | undefined,
  scanCost: ScanCost,
): Promise<{ run: RunRecord; delivered: Received[] }> {
  const taskId = await newTask(ground, engine, TASK.description, `${TASK.title} ${engine} ${round + 1}`);
  const watched = watchTask(ground, taskId);
  await watched.sse.opened;
  // The scan runs in every run, autocoder's too (where it finds nothing), so that it costs all alike.
  const watch = scanToken ? new EngineWatch(scanToken, config.scanMs) : undefined;
  watch?.start();
  const sentAt = Date.now();
  const started = await startRun(ground, taskId);
  const outcome =
    started.status === 202
      ? await waitEnd(ground, taskId, watched, config.runTimeoutMs)
      : `start ${started.status}: ${started.body}`;
  const completedAt = watched.events.find((event) => event.type === 'pipeline-complete')?.receivedAt;
  // Until the last engine process is seen gone.
  for (let n = 0; n < 100 && watch?.current; n++) await sleep(config.scanMs);
  watch?.stop();
  if (watch) {
    scanCost.cpuMs += watch.scanCpuMs;
    scanCost.scans += watch.scans;
  }
  watched.sse.close();
  const own = engine === 'autocoder' ? undefined : ground.binaries[engine];
  return {
    run: {
      engine,
      round,
      taskId,
      outcome,
      wallMs: completedAt ? completedAt - sentAt : null,
      steps: stepsOf(watched.events, watch && own === scanToken ? watch.sessions : []),
    },
    delivered: watched.events.filter(isCoderTimeline),
  };
}

export async function benchEngines(config: EnginesConfig): Promise<EnginesResult> {
  const began = Date.now();
  const loadBefore = os.loadavg().map((value) => round(value, 2));
  const bwrap = findBwrap(process.env.PATH ?? '/usr/bin:/bin');
  const { simulator, simulatorPort } = await startSimulator();
  try {
    const bench = await startBenchServer({
      kind: 'pglite',
      databaseUrl: undefined,
      name: 'engines',
      env: {
        AUTOCODER_SIMULATOR_URL: `http://127.0.0.1:${simulatorPort}`,
        AUTOCODER_SIMULATOR_DELAY_MS: '0',
        ...(bwrap ? { AUTOCODER_SANDBOX: 'bwrap' } : {}),
      },
    });
    try {
      console.log(
        `  server up in ${Math.round(bench.startMs)} ms (PGlite, sandbox ${bwrap ? 'bwrap' : 'auto: no bubblewrap'}; ` +
          'the simulator in its own process, no chunk delay)',
      );
      const client = new BenchClient(new http.Agent({ keepAlive: true, maxSockets: 4 }), bench.port);
      const email = `bench-engines-${randomBytes(3).toString('hex')}@example.com`;
      await registerWithProject(client, email, PASSWORD);
      const listed = await client.json<EnginesResponse>('GET', '/api/engines', undefined, 200);
      const ground: Ground = { port: bench.port, client, binaries: {} };
      const { usable, skipped, versions } = usableEngines(config, listed.engines, ground);
      const scanToken = ground.binaries['claude-code'] ?? ground.binaries.codex;

      const runs: RunRecord[] = [];
      const delivered = new Map<BenchEngine, Received[]>(usable.map((engine) => [engine, []]));
      const scanCost: ScanCost = { cpuMs: 0, scans: 0 };
      // Per engine, over its runs: the bench's event-loop lag and the server's main thread's CPU.
      const lags = new Map(usable.map((engine) => [engine, [] as number[]]));
      const server = new Map(usable.map((engine) => [engine, { runMs: 0, waitMs: 0, wallMs: 0 }]));
      // The engines interleaved, one run at a time: a drift of the machine's load touches all alike.
      for (let round = -config.warmup; round < config.runs; round++) {
        const warm = round < 0;
        for (const engine of usable) {
          const token = engine === 'autocoder' ? scanToken : ground.binaries[engine];
          const lag = loopLag(warm ? [] : (lags.get(engine) ?? []));
          const sched = schedStatMs(bench.server.pid);
          const wall = Date.now();
          lag.start();
          let record: RunRecord;
          try {
            const done = await oneRun(ground, engine, round, config, token, scanCost);
            record = done.run;
            if (!warm) delivered.get(engine)?.push(...done.delivered);
          } catch (error) {
            record = {
              engine,
              round,
              taskId: '',
              outcome: 'error',
              wallMs: null,
              steps: [],
              error: firstLine(error),
            };
          }
          lag.stop();
          const schedAfter = schedStatMs(bench.server.pid);
          const used = server.get(engine);
          if (!warm && used && sched && schedAfter) {
            used.runMs += schedAfter.runMs - sched.runMs;
            used.waitMs += schedAfter.waitMs - sched.waitMs;
            used.wallMs += Date.now() - wall;
          }
          if (!warm) runs.push(record);
          console.log(
            `  ${engine} ${warm ? 'warm-up run' : `run ${round + 1}/${config.runs}`}: ${record.outcome}` +
              `${record.error ? ` (${record.error})` : ''}, ${record.steps.length} coder steps, ` +
              `${record.wallMs ? `${Math.round(record.wallMs)} ms` : '–'}`,
          );
        }
      }

      const cancels = new Map<BenchEngine, CancelRecord>();
      for (const engine of config.cancel ? usable : []) {
        if (engine === 'autocoder') continue;
        const record = await cancelMidStep(ground, engine as ExternalBenchEngine, config.sleepSeconds).catch(
          (error: unknown): CancelRecord => ({ engine, outcome: 'failed', reason: firstLine(error) }),
        );
        cancels.set(engine, record);
        console.log(
          `  ${engine} cancelled mid-step: ${record.outcome}${record.reason ? ` (${record.reason})` : ''}`,
        );
      }

      const loopDelay = (engine: BenchEngine) => {
        const figures = summarize(lags.get(engine) ?? []);
        return { p50: round(figures.p50, 1), p99: round(figures.p99, 1), max: round(figures.max, 1) };
      };
      const serverCpu = (engine: BenchEngine) => {
        const used = server.get(engine);
        return used?.wallMs
          ? {
              cpuPercent: round((used.runMs / used.wallMs) * 100, 0),
              waitedPercent: round((used.waitMs / used.wallMs) * 100, 0),
            }
          : undefined;
      };
      return {
        serverStartMs: round(bench.startMs, 0),
        sandbox: bwrap ? 'bwrap' : 'auto',
        engines: config.engines.map(
          (engine) =>
            skipped.get(engine) ??
            figuresOf(engine, runs, delivered.get(engine) ?? [], {
              ...versions.get(engine),
              ...(cancels.has(engine) ? { cancel: cancels.get(engine) } : {}),
              ...(server.get(engine)?.wallMs ? { server: serverCpu(engine) } : {}),
              ...(lags.get(engine)?.length ? { benchLoopDelayMs: loopDelay(engine) } : {}),
            }),
        ),
        runs,
        bench: {
          scanMs: config.scanMs,
          scanCpuMs: scanCost.scans ? round(scanCost.cpuMs / scanCost.scans, 2) : null,
        },
        loadAverage: { before: loadBefore, after: os.loadavg().map((value) => round(value, 2)) },
        wallS: round((Date.now() - began) / 1000, 0),
      };
    } finally {
      await bench.stop();
    }
  } finally {
    await simulator.stop();
  }
}
