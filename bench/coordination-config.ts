// What the coordination bench's parts share (bench/coordination.ts, -agents, -store, -report): its
// settings, the calls it times, the agents' files and the repository they work on.
import { intEnv } from './lib/common.js';
import type { LatencySummary } from './lib/stats.js';

export const COORDINATION_AIMS = { storeP99Ms: 10, httpP99Ms: 25 };

export type StoreKind = 'memory' | 'redis';
export type Transport = 'rest' | 'mcp';
export const CALLS = ['check_status', 'post_status WRITING', 'post_status OPEN'] as const;
export type Call = (typeof CALLS)[number];
export const STORE_OPS = ['read', 'acquire', 'release'] as const;
export type StoreOp = (typeof STORE_OPS)[number];

export interface CoordinationConfig {
  agents: number;
  /** Timed cycles (check, WRITING, OPEN) per agent and transport. */
  cycles: number;
  /** Untimed cycles per agent before them: connections, caches, and the JIT's optimised code. */
  warmupCycles: number;
  /** Per transport. */
  timeCapMs: number;
  /** Cycles (read, acquire, release) per agent when the stores are called directly. */
  storeCycles: number;
  /** Files of each agent's own, besides the shared one. */
  ownFiles: number;
  /** Shared files: agent i also writes shared/s<i mod sharedFiles>, so agents/sharedFiles contend for each. */
  sharedFiles: number;
  redisUrl: string | undefined;
  /** BENCH_COORD_MCP_CLIENT: `wire` (POSTs on a bare socket, the default) or `sdk` (the SDK's Client). */
  mcpClient: 'wire' | 'sdk';
  /** The open-loop part: calls per second offered by all the agents together (BENCH_COORD_PACED_RATE). */
  pacedRate: number;
  /** How long the open-loop part offers them, per transport (BENCH_COORD_PACED_S). */
  pacedSeconds: number;
  /** BENCH_COORD_TRANSPORTS (`rest,mcp`): the transports driven, e.g. one alone for a CPU profile. */
  transports: Transport[];
}

export function coordinationConfig(): CoordinationConfig {
  return {
    agents: intEnv('BENCH_COORD_AGENTS', 50),
    cycles: intEnv('BENCH_COORD_CYCLES', 100),
    warmupCycles: intEnv('BENCH_COORD_WARMUP_CYCLES', 10),
    timeCapMs: intEnv('BENCH_COORD_TIME_CAP_S', 60) * 1000,
    storeCycles: intEnv('BENCH_COORD_STORE_CYCLES', 200),
    ownFiles: 3,
    sharedFiles: intEnv('BENCH_COORD_SHARED_FILES', 10),
    redisUrl: process.env.REDIS_URL || undefined,
    mcpClient: process.env.BENCH_COORD_MCP_CLIENT === 'sdk' ? 'sdk' : 'wire',
    pacedRate: intEnv('BENCH_COORD_PACED_RATE', 1000),
    pacedSeconds: intEnv('BENCH_COORD_PACED_S', 10),
    transports: (process.env.BENCH_COORD_TRANSPORTS ?? 'rest,mcp')
      .split(',')
      .map((name) => name.trim())
      .filter((name): name is Transport => name === 'rest' || name === 'mcp'),
  };
}

/** What the agents' timed calls came to, however they were driven (closed loop or fixed rate). */
export interface LoadResult {
  durationMs: number;
  /** Calls per second answered. */
  callsPerSecond: number;
  calls: Record<Call, LatencySummary>;
  all: LatencySummary;
  /** What the answers said, e.g. `check_status CONFLICT`, `WRITING WAIT`. */
  outcomes: Record<string, number>;
  errors: number;
  errorKinds: Record<string, number>;
  serverCpuPercent: number | null;
}

/** The closed loop of one transport (bench/coordination-load.ts `runTransport`). */
export interface TransportResult extends LoadResult {
  transport: Transport;
  /** Timed cycles completed (each: check_status, WRITING, OPEN). */
  cycles: number;
  capped: boolean;
  /** Server CPU time (all threads) per call, in ms. */
  serverCpuMsPerCall?: number | null;
  /** The load generator's own CPU time (this process: the agents' clients) per call, in ms. */
  benchCpuMsPerCall?: number | null;
  /** The same agents at a fixed rate (open loop), after the closed loop; absent where not run. */
  paced?: PacedResult;
}

/** The agents at a fixed rate, each call timed from its due time (bench/coordination-load.ts `runPaced`). */
export interface PacedResult extends LoadResult {
  /** Calls per second offered by all the agents together. */
  ratePerSecond: number;
}

/** The files of agent `i`: its own, and the shared one it also writes. */
export function filesOf(config: CoordinationConfig, i: number): string[] {
  return [
    ...Array.from({ length: config.ownFiles }, (_, k) => `src/agents/a${i}/f${k}.ts`),
    `src/shared/s${i % config.sharedFiles}.ts`,
  ];
}

/** The repository the agents work on: their files import the shared ones, so those are neighbours. */
export function coordinationRepository(config: CoordinationConfig): Map<string, string> {
  const files = new Map<string, string>();
  for (let j = 0; j < config.sharedFiles; j++)
    files.set(`src/shared/s${j}.ts`, `export const shared = ${j};\n`);
  for (let i = 0; i < config.agents; i++) {
    for (let k = 0; k < config.ownFiles; k++) {
      const previous = k > 0 ? `import { value as before } from './f${k - 1}';\n` : '';
      files.set(
        `src/agents/a${i}/f${k}.ts`,
        `import { shared } from '../../shared/s${i % config.sharedFiles}';\n${previous}export const value = shared + ${k};\n`,
      );
    }
  }
  return files;
}
