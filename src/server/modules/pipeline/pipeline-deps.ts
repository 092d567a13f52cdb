import type { Db } from '@/server/db/client.js';
import type { Logger } from '@/server/lib/logger.js';
import type { NetworkPolicy } from '@/server/lib/network-policy.js';
import type { EventLog } from '../events/event-log.js';
import type { LlmProvider } from '../llm/provider.js';
import type { ProviderDefaults, ResolvedProvider } from './provider-resolution.js';

/** Builds the provider of one run from what was resolved for it (keys included, in memory only). */
export type ProviderFactory = (resolved: ResolvedProvider & { runId: string }) => LlmProvider;

export interface OrchestratorDeps {
  db: Db;
  events: EventLog;
  logger: Logger;
  now: () => number;
  dataDir: string;
  providers: ProviderFactory;
  providerDefaults: ProviderDefaults;
  /** Where a user-chosen provider URL may go; checked before a run starts, and again on every connection. */
  network?: NetworkPolicy;
  /** First retry waits this long, then twice as long each time (1 s, 2 s, 4 s). */
  backoffBaseMs?: number;
  /** Active (running or paused) pipelines per user; one more start answers 429. */
  maxRunningPerUser?: number;
  /** Largest agent answer accepted, in bytes (AUTOCODER_MAX_ANSWER_BYTES). */
  maxAnswerBytes?: number;
  /** How long a run may work from its start or resumption before it is paused (AUTOCODER_RUN_TIMEOUT_MS). */
  runTimeoutMs?: number;
}
