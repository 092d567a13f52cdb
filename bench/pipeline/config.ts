// The pipeline part's settings and aims.
import { intEnv } from '../lib/common.js';

export const PIPELINE_AIMS = { deliveryP99Ms: 50, writesPer1kTokens: 20, startP99Ms: 50 };

export interface PipelineConfig {
  /** Runs started at once. */
  runs: number;
  /** SSE clients per task (runs × this = clients connected). */
  clientsPerTask: number;
  /** From the first start until every run must have ended. */
  timeCapMs: number;
  /** Simulator directives sent with every start (e.g. `chunk=12, coder-bytes=25000`). */
  scenario?: string;
  /** Extra environment for the server. */
  serverEnv?: Record<string, string>;
  /** How long the SSE clients may take to connect (default 30 s). */
  connectTimeoutMs?: number;
}

export function pipelineConfig(): PipelineConfig {
  return {
    runs: intEnv('BENCH_PIPELINE_RUNS', 50),
    clientsPerTask: intEnv('BENCH_PIPELINE_SSE_PER_TASK', 4),
    timeCapMs: intEnv('BENCH_PIPELINE_TIME_CAP_S', 120) * 1000,
    ...(process.env.BENCH_PIPELINE_SCENARIO ? { scenario: process.env.BENCH_PIPELINE_SCENARIO } : {}),
  };
}
