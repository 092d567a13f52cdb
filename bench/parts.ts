// Every part of `npm run bench`, in the order they run: how each one runs, prints its report and
// writes its figures to the results file. Adding a part is one entry in BENCH_PARTS (and its name in
// Aim['part']).
import { runAgentToolsPart } from './agent-tools-report.js';
import { type BoardDbResult, benchBoard, boardConfig } from './board.js';
import { boardAims, printBoard } from './board-report.js';
import { benchCoordinationServer, type CoordinationServerResult } from './coordination.js';
import { coordinationConfig, type StoreKind } from './coordination-config.js';
import { benchHttpFloor } from './coordination-floor.js';
import { type CoordinationPartResult, coordinationAims, printCoordination } from './coordination-report.js';
import { benchStoreDirect } from './coordination-store.js';
import { benchDiff, type DiffDbResult, diffConfig } from './diff.js';
import { diffAims, printDiff } from './diff-report.js';
import { runEnginesPart } from './engines-report.js';
import { printFoundation, runFoundation } from './foundation.js';
import { benchGraph, type GraphResult, graphAims, graphConfig, printGraph } from './graph.js';
import type { Aim } from './lib/common.js';
import { eachDatabase } from './lib/databases.js';
import { redactUrl } from './lib/postgres.js';
import type { Part } from './lib/results.js';
import { benchPipeline } from './pipeline/bench-pipeline.js';
import { pipelineConfig } from './pipeline/config.js';
import { pipelineAims, printPipeline } from './pipeline/report.js';
import type { PipelineDbResult } from './pipeline/result.js';
import { runReviewPagePart } from './review-page.js';
import { benchSandbox, printSandbox, sandboxAims, sandboxBenchConfig } from './sandbox.js';
import { servicesAims } from './services-aims.js';
import { benchServices, type ServicesResult, servicesConfig } from './services-proxy.js';
import { printServices } from './services-report.js';
import { runSetupPart } from './setup-report.js';
import { benchSseFlood, printSseFlood, type SseFloodStage, sseFloodAims } from './sse-flood.js';

const pipelineSettings = pipelineConfig();
const boardSettings = boardConfig();
const diffSettings = diffConfig();

interface PipelinePartResult {
  databases: PipelineDbResult[];
  aims: Aim[];
}

async function runPipelinePart(): Promise<PipelinePartResult> {
  const { runs, clientsPerTask, timeCapMs } = pipelineSettings;
  console.log(
    `\n=== Pipeline: ${runs} runs at once on the simulator at full speed, ${runs * clientsPerTask} SSE clients ` +
      `(${clientsPerTask} per task); ${timeCapMs / 1000} s cap per database`,
  );
  const databases = await eachDatabase<PipelineDbResult>(
    (kind, databaseUrl) => benchPipeline(kind, databaseUrl, pipelineSettings),
    (database, reason) => ({ status: 'skipped', database, reason }),
  );
  return {
    databases,
    aims: pipelineAims(databases, pipelineSettings).map((aim) => ({ ...aim, part: 'pipeline' })),
  };
}

async function runSseFloodPart(): Promise<{ stages: SseFloodStage[]; aims: Aim[] }> {
  console.log('\n=== SSE flood: 10 runs at once, 12-character deltas at full speed, ~25 KB per coder answer');
  const perDatabase = await eachDatabase<SseFloodStage[]>(
    (kind, databaseUrl) => benchSseFlood(kind, databaseUrl),
    (database, reason) => [{ clientsPerTask: 0, result: { status: 'skipped', database, reason } }],
  );
  const stages = perDatabase.flat();
  return { stages, aims: sseFloodAims(stages).map((aim) => ({ ...aim, part: 'sse-flood' as const })) };
}

interface BoardPartResult {
  databases: BoardDbResult[];
  aims: Aim[];
}

async function runBoardPart(): Promise<BoardPartResult> {
  console.log(
    `\n=== Board: ${boardSettings.tasks} tasks listed by ${boardSettings.clients} clients; ` +
      `${boardSettings.requests} requests per scenario, ${boardSettings.timeCapMs / 1000} s cap`,
  );
  const databases = await eachDatabase<BoardDbResult>(
    (kind, databaseUrl) => benchBoard(kind, databaseUrl, boardSettings),
    (database, reason) => ({ status: 'skipped', database, reason }),
  );
  return { databases, aims: boardAims(databases, boardSettings) };
}

interface DiffPartResult {
  databases: DiffDbResult[];
  aims: Aim[];
}

async function runDiffPart(): Promise<DiffPartResult> {
  console.log(
    `\n=== Diff: a run whose branch touches ${diffSettings.files} files with ${diffSettings.lines} changed lines, ` +
      `read by ${diffSettings.clients} clients`,
  );
  const databases = await eachDatabase<DiffDbResult>(
    (kind, databaseUrl) => benchDiff(kind, databaseUrl, diffSettings),
    (database, reason) => ({ status: 'skipped', database, reason }),
  );
  return { databases, aims: diffAims(databases, diffSettings) };
}

const graphSettings = graphConfig();

async function runGraphPart(): Promise<{ result: GraphResult; aims: Aim[] }> {
  console.log(
    `\n=== Graph: ${graphSettings.files} generated TypeScript files, ${graphSettings.coldRuns} cold builds, ` +
      `${graphSettings.updates} one-file updates, madge and dependency-cruiser on the same files`,
  );
  const result = await benchGraph(graphSettings);
  return { result, aims: graphAims(result) };
}

const coordinationSettings = coordinationConfig();
/** The settings as the results file records them: the Redis URL without a password. */
const coordinationConfigForJson = () => ({
  ...coordinationSettings,
  redisUrl: coordinationSettings.redisUrl ? redactUrl(coordinationSettings.redisUrl) : null,
});

async function runCoordinationPart(): Promise<{ result: CoordinationPartResult; aims: Aim[] }> {
  const stores: StoreKind[] = coordinationSettings.redisUrl ? ['memory', 'redis'] : ['memory'];
  console.log(
    `\n=== Coordination: ${coordinationSettings.agents} agents calling check_status / post_status over REST and MCP; ` +
      `lock stores: ${stores.join(', ')}${coordinationSettings.redisUrl ? '' : ' (set REDIS_URL for Redis)'}`,
  );
  const direct = [];
  for (const store of stores) direct.push(await benchStoreDirect(store, coordinationSettings));
  const floor = await benchHttpFloor(coordinationSettings).catch((error: unknown) => {
    console.log(`  HTTP floor: failed — ${error instanceof Error ? error.message : String(error)}`);
    return null;
  });
  const perDatabase = await eachDatabase<CoordinationServerResult[]>(
    async (kind, databaseUrl) => {
      const results: CoordinationServerResult[] = [];
      for (const store of stores) {
        console.log(`  ${store === 'memory' ? 'in-process' : 'Redis'} lock store`);
        results.push(await benchCoordinationServer(kind, databaseUrl, store, coordinationSettings));
      }
      return results;
    },
    (database, reason) => stores.map((store) => ({ status: 'skipped', database, store, reason })),
  );
  const result = { direct, floor, servers: perDatabase.flat() };
  return { result, aims: coordinationAims(result, coordinationSettings) };
}

const servicesSettings = servicesConfig();

async function runServicesPart(): Promise<{
  result: ServicesResult;
  hostNetwork: ServicesResult;
  aims: Aim[];
}> {
  console.log(
    `\n=== Services: a service's answer directly, through its preview and through the path proxy, ` +
      `${servicesSettings.clients} clients, ${servicesSettings.requests} requests each`,
  );
  const result = await benchServices(servicesSettings);
  console.log('\n    the same on the host network (AUTOCODER_SANDBOX=host: the data path before issue 23)');
  const hostNetwork = await benchServices(servicesSettings, 'host');
  return { result, hostNetwork, aims: servicesAims(result) };
}

/** A part once it has run: its aims, its report, and its figures as the results file holds them. */
export interface PartRun {
  aims: Aim[];
  /** Prints its report; `parts` are all the parts this run measures. */
  print: (parts: readonly Part[]) => void;
  /** Its figures under its keys of the results file. */
  json: () => Record<string, unknown>;
  /** Set when a database errored, which fails the bench (exit code 1). */
  failed?: boolean;
}

export interface BenchPart {
  /**
   * The keys its figures take in the results file, in order. The first one says whether the previous
   * file holds its figures: a run without this part then carries them over, every key.
   */
  keys: readonly [string, ...string[]];
  run: () => Promise<PartRun>;
}

/** One result per database, keyed by the database (`pglite`, `postgres`). */
const byDatabase = <R extends { database: string }>(results: readonly R[]) =>
  Object.fromEntries(results.map((entry) => [entry.database, entry]));

/** The parts, in the order they run and their figures appear in the results file. */
export const BENCH_PARTS: Record<Part, BenchPart> = {
  foundation: {
    keys: ['start', 'databases'],
    run: async () => {
      const foundation = await runFoundation();
      return {
        aims: foundation.aims,
        print: () => printFoundation(foundation),
        json: () => ({ start: foundation.start, databases: byDatabase(foundation.databases) }),
      };
    },
  },
  pipeline: {
    keys: ['pipeline'],
    run: async () => {
      const pipeline = await runPipelinePart();
      return {
        aims: pipeline.aims,
        print: (parts) => {
          if (parts.includes('foundation')) console.log('\n--- Pipeline');
          for (const result of pipeline.databases) printPipeline(result, pipelineSettings);
        },
        json: () => ({
          pipeline: {
            config: { ...pipelineSettings, simulatorDelayMs: 0 },
            databases: byDatabase(pipeline.databases),
          },
        }),
        failed: pipeline.databases.some((entry) => entry.status === 'error'),
      };
    },
  },
  'sse-flood': {
    keys: ['sseFlood'],
    run: async () => {
      const sseFlood = await runSseFloodPart();
      return {
        aims: sseFlood.aims,
        print: () => {
          console.log('\n--- SSE flood');
          printSseFlood(sseFlood.stages);
        },
        json: () => ({ sseFlood: sseFlood.stages }),
        failed: sseFlood.stages.some((stage) => stage.result.status === 'error'),
      };
    },
  },
  board: {
    keys: ['board'],
    run: async () => {
      const board = await runBoardPart();
      return {
        aims: board.aims,
        print: () => {
          console.log('\n--- Board');
          for (const result of board.databases) printBoard(result, boardSettings);
        },
        json: () => ({ board: { config: boardSettings, databases: byDatabase(board.databases) } }),
      };
    },
  },
  diff: {
    keys: ['diff'],
    run: async () => {
      const diff = await runDiffPart();
      return {
        aims: diff.aims,
        print: () => {
          console.log('\n--- Diff');
          for (const result of diff.databases) printDiff(result, diffSettings);
        },
        json: () => ({ diff: { config: diffSettings, databases: byDatabase(diff.databases) } }),
      };
    },
  },
  graph: {
    keys: ['graph'],
    run: async () => {
      const graph = await runGraphPart();
      return {
        aims: graph.aims,
        print: () => {
          console.log('\n--- Graph');
          printGraph(graph.result);
        },
        json: () => ({ graph: { config: graphSettings, ...graph.result } }),
      };
    },
  },
  coordination: {
    keys: ['coordination'],
    run: async () => {
      const coordination = await runCoordinationPart();
      return {
        aims: coordination.aims,
        print: () => {
          console.log('\n--- Coordination');
          printCoordination(coordination.result, coordinationSettings);
        },
        json: () => ({ coordination: { config: coordinationConfigForJson(), ...coordination.result } }),
      };
    },
  },
  services: {
    keys: ['services'],
    run: async () => {
      const services = await runServicesPart();
      return {
        aims: services.aims,
        print: () => {
          console.log(
            '\n--- Services (bubblewrap: each service in a network namespace of its own, reached through its bridge)',
          );
          printServices(services.result, servicesSettings);
          console.log(
            '\n--- Services, before: the same on the host network (AUTOCODER_SANDBOX=host), for reference',
          );
          printServices(services.hostNetwork, servicesSettings);
        },
        json: () => ({
          services: { config: servicesSettings, ...services.result, hostNetwork: services.hostNetwork },
        }),
      };
    },
  },
  sandbox: {
    keys: ['sandbox'],
    run: async () => {
      const config = sandboxBenchConfig();
      console.log(
        `\n=== Sandbox: the start of a sandboxed \`true\`, ${config.runs} times per configuration, interleaved`,
      );
      const result = await benchSandbox(config);
      return {
        aims: sandboxAims(result),
        print: () => {
          console.log('\n--- Sandbox');
          printSandbox(result);
        },
        json: () => ({ sandbox: { config, ...result } }),
      };
    },
  },
  'agent-tools': { keys: ['agentTools'], run: runAgentToolsPart },
  engines: { keys: ['engines'], run: runEnginesPart },
  setup: { keys: ['setup'], run: runSetupPart },
  'review-page': { keys: ['reviewPage'], run: runReviewPagePart },
};

/** The parts' names, in order. */
export const PARTS = Object.keys(BENCH_PARTS) as Part[];
