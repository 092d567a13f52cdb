import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createApp } from './app.js';
import type { Database } from './db/client.js';
import type { Env } from './env.js';
import { createAppServer } from './http/app-server.js';
import { hostRulesFor } from './http/host-check.js';
import { builtPath } from './lib/built-path.js';
import type { Logger } from './lib/logger.js';
import { isLoopbackHost } from './lib/network-policy.js';
import { createMemoryRateLimitStore, DEFAULT_RATE_LIMITS } from './lib/rate-limit.js';
import { createRedisRateLimitStore } from './lib/redis-rate-limit.js';
import { createRedisLockStore } from './modules/coordination/redis-lock-store.js';
import type { Sandbox } from './modules/sandbox/sandbox.js';
import { releaseLeftHolds } from './modules/workspace/checkout-hold.js';
import { createRuntime } from './runtime.js';
import { readVersion } from './version.js';

/*
 * The server proper: the runtime, the app and the HTTP listener, over a database main.ts has opened.
 * main.ts loads this module only after it has started opening the database, so that loading the
 * whole API (most of start-up's own time) overlaps PGlite's start in its worker thread.
 */

export interface ServeOptions {
  env: Env;
  logger: Logger;
  sandbox: Sandbox;
  database: Database;
}

export async function startServer({ env, logger, sandbox, database }: ServeOptions): Promise<void> {
  const version = readVersion();
  let listeningPort = env.port;
  const runtime = await createRuntime({
    database,
    dataDir: env.dataDir,
    importRoots: env.importRoots,
    network: { serverOnLoopback: isLoopbackHost(env.host), allowedHosts: env.allowedHosts },
    logger,
    now: Date.now,
    // In Redis, the limits hold across every process of the server.
    rateLimitStore: env.redisUrl ? createRedisRateLimitStore(env.redisUrl) : createMemoryRateLimitStore(),
    rateLimits: { ...DEFAULT_RATE_LIMITS, perIp: { max: env.authRequestsPerMinute, windowMs: 60_000 } },
    trustProxy: env.trustProxy,
    version,
    sandbox,
    providerDefaults: {
      anthropicApiKey: env.anthropicApiKey,
      anthropicBaseUrl: env.anthropicBaseUrl,
      claudeCodeToken: env.claudeCodeToken,
      openaiBaseUrl: env.openaiBaseUrl,
      openaiApiKey: env.openaiApiKey,
    },
    simulatorUrl: env.simulatorUrl,
    simulatorChunkDelayMs: env.simulatorDelayMs,
    sse: { maxStreamsPerUser: env.sseMaxStreamsPerUser },
    maxAnswerBytes: env.maxAnswerBytes,
    runTimeoutMs: env.runTimeoutMs,
    depCache: env.depCache,
    gitPush: env.gitPush,
    // In Redis, every process of the server sees the same file locks.
    ...(env.redisUrl ? { lockStore: createRedisLockStore(env.redisUrl) } : {}),
    lockTtlMs: env.lockTtlSeconds * 1000,
    lockWaitMs: env.lockWaitSeconds * 1000,
    // A passive service may not point the proxy at AutoCoder itself.
    services: { reservedPorts: () => [listeningPort], maxRunningPerUser: env.maxServicesPerUser },
  });
  await runtime.deps.orchestrator.recoverInterrupted();
  // Project checkouts held for services when the server last stopped follow their branches again.
  for (const repo of await releaseLeftHolds(path.join(env.dataDir, 'repos'))) {
    logger.warn('a project checkout stays held: local edits would be overwritten', { repo });
  }
  const hostsOn = (port: number) =>
    hostRulesFor({ publicUrl: env.publicUrl, baseDomain: env.baseDomain, listenHost: env.host, port });
  let hosts = hostsOn(env.port);
  const app = createApp(runtime.deps, {
    webDir: builtPath('web'),
    hosts: () => hosts,
    metricsToken: env.metricsToken,
  });

  // Services' requests and WebSockets (a dev server's hot reload) go straight to the proxy.
  const server = createAppServer(runtime.deps, app.fetch, () => hosts, { hostname: env.host });
  server.listen(env.port, env.host, () => {
    const info = server.address() as AddressInfo;
    hosts = hostsOn(info.port); // PORT=0 picks a free port: known only now
    listeningPort = info.port;
    logger.info('AutoCoder is listening', {
      url: `http://${env.host.includes(':') ? `[${env.host}]` : env.host}:${info.port}`,
      database: database.kind,
      dataDir: env.dataDir,
      sandbox: sandbox.mode,
      sandboxUid: sandbox.summary.uid,
      sandboxLimits: sandbox.summary.limits,
      sandboxAllowedHosts: sandbox.summary.allowedHosts,
      version,
      hosts: [...hosts.own],
    });
  });

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    // Refuse new connections, let in-flight requests finish, then close the database.
    const force = setTimeout(() => {
      logger.warn('in-flight requests did not finish in 10 s; closing anyway');
      server.closeAllConnections();
    }, 10_000);
    force.unref();
    // End SSE streams and stop runs (paused as interrupted, commits kept) before the server closes.
    const closingRuntime = runtime.close().finally(() => server.closeIdleConnections());
    server.close(async () => {
      clearTimeout(force);
      await closingRuntime;
      await sandbox.close();
      await database.close();
      logger.info('stopped');
      process.exit(0);
    });
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}
