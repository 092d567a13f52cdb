import { setMaxListeners } from 'node:events';
import type { Database } from './db/client.js';
import type { AppDeps } from './deps.js';
import type { Logger } from './lib/logger.js';
import type { RateLimitStore, RateLimits } from './lib/rate-limit.js';
import { createMemoryBus, type EventBus } from './modules/events/bus.js';
import { EventLog, type EventLogOptions } from './modules/events/event-log.js';
import { DEFAULT_SSE_SETTINGS, type SseSettings } from './modules/events/sse.js';
import { createProvider } from './modules/llm/providers.js';
import { startSimulator } from './modules/llm/simulator/server.js';
import { Orchestrator } from './modules/pipeline/orchestrator.js';
import type { ProviderDefaults } from './modules/pipeline/provider-resolution.js';

export interface RuntimeOptions {
  database: Database;
  dataDir: string;
  logger: Logger;
  now: () => number;
  rateLimitStore: RateLimitStore;
  rateLimits: RateLimits;
  trustProxy: boolean;
  version: string;
  providerDefaults: ProviderDefaults;
  /** An already running simulator; when absent one is started in this process on a free loopback port. */
  simulatorUrl?: string;
  /** Delay between simulated chunks (a human-watchable pace by default; 0 in tests and benchmarks). */
  simulatorChunkDelayMs?: number;
  backoffBaseMs?: number;
  maxRunningPerUser?: number;
  /** Largest agent answer accepted, in bytes (AUTOCODER_MAX_ANSWER_BYTES). */
  maxAnswerBytes?: number;
  sse?: Partial<SseSettings>;
  eventLog?: EventLogOptions;
  bus?: EventBus;
}

export interface Runtime {
  deps: AppDeps;
  simulatorUrl: string;
  /** Stops runs (paused as interrupted), ends SSE streams, writes pending events, stops the simulator. */
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
  const orchestrator = new Orchestrator({
    db: options.database.db,
    events,
    logger: options.logger,
    now: options.now,
    dataDir: options.dataDir,
    providerDefaults: options.providerDefaults,
    providers: (resolved) => createProvider({ ...resolved, simulatorUrl }),
    ...(options.backoffBaseMs !== undefined ? { backoffBaseMs: options.backoffBaseMs } : {}),
    ...(options.maxRunningPerUser !== undefined ? { maxRunningPerUser: options.maxRunningPerUser } : {}),
    ...(options.maxAnswerBytes !== undefined ? { maxAnswerBytes: options.maxAnswerBytes } : {}),
  });
  const deps: AppDeps = {
    db: options.database.db,
    dbKind: options.database.kind,
    dbStats: options.database.stats,
    dataDir: options.dataDir,
    logger: options.logger,
    now: options.now,
    rateLimitStore: options.rateLimitStore,
    rateLimits: options.rateLimits,
    trustProxy: options.trustProxy,
    version: options.version,
    events,
    orchestrator,
    sse: { ...DEFAULT_SSE_SETTINGS, ...options.sse },
    shutdown: shutdown.signal,
  };
  return {
    deps,
    simulatorUrl,
    async close() {
      shutdown.abort();
      await orchestrator.shutdown();
      await events.close();
      await simulator?.close();
    },
  };
}
