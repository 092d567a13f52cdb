import type { Db } from '@/server/db/client.js';
import type { Logger } from '@/server/lib/logger.js';
import type { NetworkPolicy } from '@/server/lib/network-policy.js';
import type { CheckSandbox } from '../checks/check-runner.js';
import type { RunLocks } from '../coordination/run-locks.js';
import type { ExternalEngines } from '../engines/external-engines.js';
import type { EventLog } from '../events/event-log.js';
import type { LlmProvider } from '../llm/provider.js';
import type { DepCache } from '../setup/dep-cache.js';
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
  /** Runs the repository's check (the project's `checkCommand`) in a run's worktree. */
  sandbox: CheckSandbox;
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
  /** The runs' file locks (issue 9: our pipeline obeys the locks); runs take none without them. */
  locks?: RunLocks;
  /** Claude Code and Codex as coder engines; a run that asks for one without them is refused. */
  engines?: ExternalEngines;
  /** Installed results of worktree setups (the dependency cache); without it every setup installs. */
  depCache?: DepCache;
  /**
   * Announces that an approval or a revert moved the project's branch (the graph module's
   * `announceMovedHeads`: the `head-moved` event and a graph refresh); nothing is said without it.
   */
  headsMoved?: HeadsMoved;
}

/** Tells whoever follows a project's branches that some moved. */
export type HeadsMoved = (
  repo: { id: string; repoPath: string },
  moved: readonly { branch: string; head: string }[],
) => Promise<void>;
