import type { DatabaseKind, Db, QueryStats } from './db/client.js';
import type { Logger } from './lib/logger.js';
import type { NetworkPolicy } from './lib/network-policy.js';
import type { RateLimitStore, RateLimits } from './lib/rate-limit.js';
import type { SessionUser } from './modules/auth/auth.js';
import type { CoordinationSettings } from './modules/coordination/coordination.js';
import type { Agent } from './modules/coordination/tokens.js';
import type { ExternalEngines } from './modules/engines/external-engines.js';
import type { EventLog } from './modules/events/event-log.js';
import type { SseSettings } from './modules/events/sse.js';
import type { SseHub } from './modules/events/sse-hub.js';
import type { PushLimits } from './modules/git-http/push-policy.js';
import type { GraphService } from './modules/graph/graph-service.js';
import type { Orchestrator } from './modules/pipeline/orchestrator.js';
import type { PreviewAccess } from './modules/services/preview-access.js';
import type { ServiceProxy } from './modules/services/proxy.js';
import type { ServiceManager } from './modules/services/service-manager.js';
import type { DepCache } from './modules/setup/dep-cache.js';

/** Everything a module needs from the outside world, handed in by `createApp(deps)`. */
export interface AppDeps {
  db: Db;
  dbKind: DatabaseKind;
  /** How long a session or agent token found in the database is trusted; null: until logout, revoke or expiry (`credentialRecheckFor`). */
  credentialRecheckMs: number | null;
  /** Statement counters of the database connection (GET /api/metrics). */
  dbStats: QueryStats;
  /** Root for repositories and other files the app keeps. */
  dataDir: string;
  /** Directories local paths may be imported from (AUTOCODER_IMPORT_ROOTS); empty: local import is off. */
  importRoots: readonly string[];
  /** Which addresses user-chosen URLs (git imports, OpenAI-compatible endpoints) may reach. */
  network: NetworkPolicy;
  logger: Logger;
  /** Milliseconds since the epoch; tests may move it. */
  now: () => number;
  rateLimitStore: RateLimitStore;
  rateLimits: RateLimits;
  /** Trust X-Forwarded-* headers (behind a reverse proxy). */
  trustProxy: boolean;
  version: string;
  /** The ordered, persisted log behind every SSE stream. */
  events: EventLog;
  orchestrator: Orchestrator;
  /** Claude Code and Codex as coder engines (GET /api/engines). */
  engines: ExternalEngines;
  /** The dependency cache of worktree setups (GET /api/projects/:id/setup). */
  depCache: DepCache;
  /** Import graphs per (project, branch), kept at the branch head. */
  graphs: GraphService;
  sse: SseSettings;
  /** Open SSE streams by user and session: the per-user cap, closing on logout and expiry. */
  sseHub: SseHub;
  /** Aborted when the server shuts down: long-lived responses (SSE) end. */
  shutdown: AbortSignal;
  /** Multi-agent coordination (issue 9): the lock store, the import-graph neighbours, the lock TTL. */
  coordination: CoordinationSettings;
  /** Workspace services (issue 10): their processes, state and output. */
  services: ServiceManager;
  /** Preview tickets and the grants their cookies hold. */
  previews: PreviewAccess;
  /** The HTTP and WebSocket proxy to services. */
  serviceProxy: ServiceProxy;
  /** What one push over git smart HTTP may bring (AUTOCODER_MAX_BLOB_BYTES, AUTOCODER_MAX_PUSH_UNPACKED_BYTES). */
  gitPush: PushLimits;
}

export type { SessionUser };

/** Hono environment of every router. */
export type AppEnv = {
  Variables: {
    user: SessionUser;
    sessionId: string;
    /** Who calls the coordination routes: a token's agent, or the signed-in user. */
    agent: Agent;
  };
};
