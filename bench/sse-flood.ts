// The sse-flood part of `npm run bench`: issue 6 item 9's workload. 10 runs at once, the simulator
// streaming 12-character deltas as fast as the socket allows with ~25 KB per coder answer, watched by
// 20 SSE clients per task (200), then 100 per task (1,000). See bench/README.md ("SSE flood").
import { type Aim, intEnv } from './lib/common.js';
import { benchPipeline } from './pipeline/bench-pipeline.js';
import { PIPELINE_AIMS, type PipelineConfig } from './pipeline/config.js';
import { printPipeline } from './pipeline/report.js';
import type { PipelineDbResult } from './pipeline/result.js';

export const SSE_FLOOD_SCENARIO = 'chunk=12, coder-bytes=25000';

export interface SseFloodStage {
  clientsPerTask: number;
  result: PipelineDbResult;
}

/** One configuration per stage: the same runs, more clients. */
export function sseFloodConfigs(): PipelineConfig[] {
  const runs = intEnv('BENCH_SSE_FLOOD_RUNS', 10);
  const stages = (process.env.BENCH_SSE_FLOOD_CLIENTS_PER_TASK ?? '20,100')
    .split(',')
    .map((value) => Number(value.trim()))
    .filter((value) => Number.isInteger(value) && value > 0);
  return stages.map((clientsPerTask) => ({
    runs,
    clientsPerTask,
    timeCapMs: intEnv('BENCH_SSE_FLOOD_TIME_CAP_S', 180) * 1000,
    scenario: SSE_FLOOD_SCENARIO,
    // 1,000 clients each pass the session, ownership and replay queries before their first byte.
    connectTimeoutMs: 120_000,
    // Every task's clients are its owner's: lift the per-user stream cap for the bench.
    serverEnv: { AUTOCODER_SSE_MAX_STREAMS_PER_USER: '100000' },
  }));
}

/** Every stage on one database. */
export async function benchSseFlood(
  kind: 'pglite' | 'postgres',
  databaseUrl: string | undefined,
): Promise<SseFloodStage[]> {
  const stages: SseFloodStage[] = [];
  for (const config of sseFloodConfigs()) {
    console.log(`  ${config.runs} runs × ${config.clientsPerTask} clients per task (${config.scenario})`);
    stages.push({
      clientsPerTask: config.clientsPerTask,
      result: await benchPipeline(kind, databaseUrl, config),
    });
  }
  return stages;
}

export function printSseFlood(stages: readonly SseFloodStage[]): void {
  const configs = sseFloodConfigs();
  for (const stage of stages) {
    const config = configs.find((c) => c.clientsPerTask === stage.clientsPerTask) ?? configs[0];
    if (config) printPipeline(stage.result, config);
  }
}

/** Delivery p99 under the flood, per database and stage. */
export function sseFloodAims(stages: readonly SseFloodStage[]): Aim[] {
  return stages.map(({ clientsPerTask, result }) => {
    const p99 = result.status === 'ok' ? result.delivery.latencyMs.p99 : null;
    const runs = result.status === 'ok' ? result.setup.tasks : intEnv('BENCH_SSE_FLOOD_RUNS', 10);
    const name = result.database === 'pglite' ? 'PGlite' : 'PostgreSQL';
    return {
      name: `${name}: SSE flood delivery p99 (${runs} runs, ${runs * clientsPerTask} clients, 12-char deltas)`,
      target: `< ${PIPELINE_AIMS.deliveryP99Ms} ms`,
      actual: p99,
      unit: 'ms',
      met: p99 === null || Number.isNaN(p99) ? null : p99 < PIPELINE_AIMS.deliveryP99Ms,
    };
  });
}
