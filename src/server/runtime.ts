import { setMaxListeners } from 'node:events';
import path from 'node:path';
import type { Database } from './db/client.js';
import type { AppDeps } from './deps.js';
import { credentialRecheckFor } from './lib/credential-recheck.js';
import { closeGitObjectReaders } from './lib/git-objects.js';
import { createGuardedFetch } from './lib/guarded-fetch.js';
import type { Logger } from './lib/logger.js';
import { createNetworkPolicy, type NetworkPolicyOptions } from './lib/network-policy.js';
import type { RateLimitStore, RateLimits } from './lib/rate-limit.js';
import { liveSessionIds } from './modules/auth/auth.repo.js';
import type { CheckSandbox } from './modules/checks/check-runner.js';
import { graphNeighbourSource } from './modules/coordination/graph-neighbours.js';
import type { LockStore } from './modules/coordination/lock-store.js';
import { startLockSweeper } from './modules/coordination/lock-sweeper.js';
import { createMemoryLockStore } from './modules/coordination/memory-lock-store.js';
import type { NeighbourSource } from './modules/coordination/neighbours.js';
import { RunLocks } from './modules/coordination/run-locks.js';
import { createEngineCatalog } from './modules/engines/engine-catalog.js';
import { createExternalEngines } from './modules/engines/external-engines.js';
import { createMemoryBus, type EventBus } from './modules/events/bus.js';
import { EventLog, type EventLogOptions } from './modules/events/event-log.js';
import { DEFAULT_SSE_SETTINGS, type SseSettings } from './modules/events/sse.js';
import { SseHub } from './modules/events/sse-hub.js';
import { DEFAULT_PUSH_LIMITS, type PushLimits } from './modules/git-http/push-policy.js';
import { GraphService } from './modules/graph/graph-service.js';
import { announceMovedHeads } from './modules/graph/head-moved.js';
import { createProvider } from './modules/llm/providers.js';
import { startSimulator } from './modules/llm/simulator/server.js';
import { Orchestrator } from './modules/pipeline/orchestrator.js';
import type { ProviderDefaults } from './modules/pipeline/provider-resolution.js';
import type { ServiceSandbox } from './modules/services/managed-service.js';
import { PreviewAccess } from './modules/services/preview-access.js';
import { ServiceProxy } from './modules/services/proxy.js';
import { ServiceManager, type ServiceManagerOptions } from './modules/services/service-manager.js';
import { DepCache } from './modules/setup/dep-cache.js';
import { createWorkspacePreparer } from './modules/setup/workspace-setup.js';

export interface RuntimeOptions {
  database: Database;
  dataDir: string;
  /** AUTOCODER_IMPORT_ROOTS; none by default (local import off). */
  importRoots?: readonly string[];
  /** Where user-chosen URLs may go; by default as for a server listening on loopback. */
  network?: NetworkPolicyOptions;
  logger: Logger;
  now: () => number;
  rateLimitStore: RateLimitStore;
  rateLimits: RateLimits;
  trustProxy: boolean;
  version: string;
  providerDefaults: ProviderDefaults;
  /** Where repository code (a project's check, services) runs; the caller creates and closes it. */
  sandbox: CheckSandbox & ServiceSandbox;
  /** Timings of workspace services (start timeout, stop grace, memory after stop, checkout watch). */
  services?: Partial<
    Pick<
      ServiceManagerOptions,
      'startTimeoutMs' | 'stopGraceMs' | 'keepStoppedMs' | 'watchMs' | 'reservedPorts' | 'maxRunningPerUser'
    >
  >;
  /** An already running simulator; when absent one is started in this process on a free loopback port. */
  simulatorUrl?: string;
  /** Delay between simulated chunks (a human-watchable pace by default; 0 in tests and benchmarks). */
  simulatorChunkDelayMs?: number;
  backoffBaseMs?: number;
  maxRunningPerUser?: number;
  /** Largest agent answer accepted, in bytes (AUTOCODER_MAX_ANSWER_BYTES). */
  maxAnswerBytes?: number;
  /** How long a run may work before it is paused (AUTOCODER_RUN_TIMEOUT_MS). */
  runTimeoutMs?: number;
  /** The dependency cache's caps (AUTOCODER_CACHE_MAX_GB, AUTOCODER_CACHE_PROJECT_MAX_GB); 10 GB and 2 GB by default. */
  depCache?: { totalMaxBytes: number; projectMaxBytes: number };
  /** What one push may bring (AUTOCODER_MAX_BLOB_BYTES, AUTOCODER_MAX_PUSH_UNPACKED_BYTES). */
  gitPush?: Partial<PushLimits>;
  sse?: Partial<SseSettings>;
  eventLog?: EventLogOptions;
  bus?: EventBus;
  /** Where file locks live: in this process by default, Redis when REDIS_URL is set (main.ts). */
  lockStore?: LockStore;
  /** LOCK_TTL_SECONDS in milliseconds (default 300 s). */
  lockTtlMs?: number;
  /** LOCK_WAIT_SECONDS in milliseconds (default 60 s): how long a run waits for another agent's lock. */
  lockWaitMs?: number;
  /** Import-graph neighbours for the coordination rules; default: the graph module's, of the branch head. */
  neighbours?: NeighbourSource;
}

export interface Runtime {
  deps: AppDeps;
  simulatorUrl: string;
  /** Stops runs (paused as interrupted) and services, ends SSE streams, writes pending events, stops the simulator. */
  close(): Promise<void>;
}

/** Assembles the long-lived parts — event log, simulator, orchestrator — around a database. */
export async function createRuntime(options: RuntimeOptions): Promise<Runtime> {
  const shutdown = new AbortController();
  // Every SSE client listens for shutdown on this one signal: many listeners are expected.
  setMaxListeners(0, shutdown.signal);
  const simulator = options.simulatorUrl
    ? null
    : await startSimulator({ host: '127.0.0.1', port: 0, chunkDelayMs: options.simulatorChunkDelayMs ?? 15 });
  const simulatorUrl = options.simulatorUrl ?? simulator?.url ?? '';
  const events = new EventLog(
    options.database.db,
    options.bus ?? createMemoryBus(),
    options.logger,
    options.now,
    options.eventLog,
  );
  const locks = options.lockStore ?? createMemoryLockStore();
  const runLocks = new RunLocks({
    db: options.database.db,
    now: options.now,
    events,
    locks,
    waitMs: options.lockWaitMs ?? 60_000,
  });
  // The locks runs hold through Review (and while paused) outlive the process that took them.
  const restored = await runLocks.restore();
  if (restored.runs > 0 || restored.dropped.length > 0)
    options.logger.info('run locks restored', {
      runs: restored.runs,
      files: restored.files,
      dropped: restored.dropped,
    });
  const network = createNetworkPolicy(options.network ?? { serverOnLoopback: true });
  const guardedFetch = createGuardedFetch(network);
  const depCache = new DepCache({
    root: path.join(options.dataDir, 'cache', 'deps'),
    totalMaxBytes: options.depCache?.totalMaxBytes ?? 10 * 1024 ** 3,
    projectMaxBytes: options.depCache?.projectMaxBytes ?? 2 * 1024 ** 3,
  });
  const engines = createExternalEngines({
    catalog: createEngineCatalog({
      sandboxRefusal: () =>
        options.sandbox.mode === 'off'
          ? 'Running repository code is disabled on this server (AUTOCODER_SANDBOX=off)'
          : null,
    }),
    sandbox: options.sandbox,
    simulatorUrl: () => simulatorUrl,
    guardedFetch,
  });
  const graphs = new GraphService({ dataDir: options.dataDir, logger: options.logger });
  const headWatch = { events, graphs, logger: options.logger, now: options.now };
  const orchestrator = new Orchestrator({
    db: options.database.db,
    events,
    logger: options.logger,
    now: options.now,
    dataDir: options.dataDir,
    providerDefaults: options.providerDefaults,
    sandbox: options.sandbox,
    network,
    providers: (resolved) =>
      createProvider({
        ...resolved,
        simulatorUrl,
        ...(resolved.openaiUserUrl ? { openaiFetch: guardedFetch } : {}),
      }),
    ...(options.backoffBaseMs !== undefined ? { backoffBaseMs: options.backoffBaseMs } : {}),
    ...(options.maxRunningPerUser !== undefined ? { maxRunningPerUser: options.maxRunningPerUser } : {}),
    ...(options.maxAnswerBytes !== undefined ? { maxAnswerBytes: options.maxAnswerBytes } : {}),
    ...(options.runTimeoutMs !== undefined ? { runTimeoutMs: options.runTimeoutMs } : {}),
    locks: runLocks,
    engines,
    depCache,
    headsMoved: (repo, moved) => announceMovedHeads(headWatch, repo, moved),
  });
  const sse = { ...DEFAULT_SSE_SETTINGS, ...options.sse };
  const sseHub = new SseHub({
    maxStreamsPerUser: sse.maxStreamsPerUser,
    sessionCheckMs: sse.sessionCheckMs,
    liveSessions: (ids) => liveSessionIds(options.database.db, ids, new Date(options.now())),
    logger: options.logger,
  });
  const stopLockSweeper = startLockSweeper({ locks, events, logger: options.logger, now: options.now });
  const previews = new PreviewAccess(options.now);
  const services = new ServiceManager({
    prepare: createWorkspacePreparer({
      sandbox: options.sandbox,
      depCache,
      logger: options.logger,
      now: options.now,
    }),
    onWorkspaceGone: (workspaceId) => previews.revokeWorkspace(workspaceId),
    sandbox: options.sandbox,
    dataDir: options.dataDir,
    logger: options.logger,
    now: options.now,
    ...options.services,
  });
  const serviceProxy = new ServiceProxy(options.logger);
  const deps: AppDeps = {
    db: options.database.db,
    dbKind: options.database.kind,
    credentialRecheckMs: credentialRecheckFor(options.database.kind),
    dbStats: options.database.stats,
    dataDir: options.dataDir,
    importRoots: options.importRoots ?? [],
    network,
    logger: options.logger,
    now: options.now,
    rateLimitStore: options.rateLimitStore,
    rateLimits: options.rateLimits,
    trustProxy: options.trustProxy,
    version: options.version,
    events,
    orchestrator,
    engines,
    depCache,
    graphs,
    sse,
    sseHub,
    shutdown: shutdown.signal,
    coordination: {
      locks,
      neighbours: options.neighbours ?? graphNeighbourSource(graphs, options.logger),
      lockTtlMs: options.lockTtlMs ?? 300_000,
    },
    services,
    previews,
    serviceProxy,
    gitPush: { ...DEFAULT_PUSH_LIMITS, ...options.gitPush },
  };
  return {
    deps,
    simulatorUrl,
    async close() {
      shutdown.abort();
      // Services first: no process of a repository outlives the server (SIGTERM, SIGKILL after 5 s).
      const stoppingServices = services.close();
      stopLockSweeper();
      sseHub.close();
      graphs.close();
      await orchestrator.shutdown();
      // Questions still pending fall back to a git command of their own.
      closeGitObjectReaders();
      await events.close();
      await simulator?.close();
      await locks.close();
      await stoppingServices;
      serviceProxy.close();
    },
  };
}
