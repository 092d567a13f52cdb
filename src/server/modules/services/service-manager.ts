import { stat } from 'node:fs/promises';
import type { Service, ServiceList, Workspace } from '@/contracts/services.js';
import { AppError } from '@/server/lib/errors.js';
import type { Logger } from '@/server/lib/logger.js';
import { CheckoutHolds } from './checkout-holds.js';
import { type Discovery, discoverServices, findService, type ServiceDefinition } from './discovery.js';
import { ManagedService, type ServiceSandbox } from './managed-service.js';
import { feedOf, type OutputFeed } from './output-feed.js';
import { OutputLog, outputFile, readOutputFile } from './output-log.js';
import { freePort } from './ports.js';
import type { ProxyTarget } from './proxy-target.js';
import {
  alreadyRunning,
  noPort,
  notFound,
  notListening,
  notRunning,
  passive,
  tooMany,
} from './service-errors.js';
import { declaredPort, toService } from './service-view.js';

/**
 * The part of a workspace the manager needs. A project's own checkout (`kind`) is held on its
 * `branch` while services run in it (`checkout-holds.ts`).
 */
export interface ServiceWorkspace extends Pick<Workspace, 'id' | 'kind' | 'branch'> {
  /** Its owner (a workspace never changes hands). */
  userId: string;
  dir: string;
  serviceEnv: Record<string, string>;
  /** The project's network allow-list; null (or absent): the operator's. */
  allowedHosts?: readonly string[] | null;
  readOnlyPaths: readonly string[];
  projectId?: string;
  /** The project's setup command (see `ServiceManagerOptions.prepare`). */
  setup?: { command: string; timeoutSeconds: number } | null;
}

/**
 * Gets a workspace's checkout ready to run the project before a service starts in it (the
 * project's setup command, when its lockfiles changed since it last ran there); its output goes to
 * the service's log through `write`. Throws why it failed.
 */
export type PrepareWorkspace = (
  workspace: ServiceWorkspace,
  write: (stream: 'stdout' | 'stderr', text: string) => void,
  /** Aborted when the service is stopped meanwhile. */
  signal: AbortSignal,
) => Promise<void>;

export interface ServiceManagerOptions {
  sandbox: ServiceSandbox;
  /** Runs before each service starts (the setup module's); none: services start in the checkout as it is. */
  prepare?: PrepareWorkspace;
  dataDir: string;
  logger: Logger;
  now: () => number;
  /** A service whose port has not opened by then is `error` (default 120 s). */
  startTimeoutMs?: number;
  /** SIGTERM to SIGKILL when stopping (seed 002: 5 s). */
  stopGraceMs?: number;
  /** How long a stopped service stays in memory (seed 002: 30 s). */
  keepStoppedMs?: number;
  /** How often the checkouts of running services are checked; a gone one stops its services (5 s). */
  watchMs?: number;
  /** Told when a workspace's checkout is found gone (its preview grants are dropped). */
  onWorkspaceGone?: (workspaceId: string) => void;
  /** Ports a passive service may not point the proxy at (AutoCoder's own). */
  reservedPorts?: () => readonly number[];
  /** Services one user may run at once, in every workspace (default 10); one more answers 429. */
  maxRunningPerUser?: number;
}

const DEFAULT_MAX_RUNNING_PER_USER = 10;

/**
 * The services of every workspace this process runs: starts them in the sandbox, keeps their
 * state and output, stops them (on request, when their checkout goes, on shutdown) and tells the
 * proxy where they listen.
 */
export class ServiceManager {
  private readonly runs = new Map<string, ManagedService>();
  /** Ports held by active runs, so `auto` never hands one out twice, by run key. */
  private readonly ports = new Map<number, string>();
  /** Runs being set up (their port chosen): key → owner. */
  private readonly starting = new Map<string, string>();
  private readonly watcher: NodeJS.Timeout;
  private closed = false;
  /** Discovery warnings already logged, so that a polled list logs each once. */
  private readonly warned = new Set<string>();
  /** Project checkouts held while their services run. */
  private readonly holds: CheckoutHolds;

  constructor(private readonly options: ServiceManagerOptions) {
    this.holds = new CheckoutHolds(options.logger);
    this.watcher = setInterval(() => void this.stopOrphans(), options.watchMs ?? 5000);
    this.watcher.unref();
  }

  async list(workspace: ServiceWorkspace): Promise<ServiceList> {
    const { definitions, warnings }: Discovery = await discoverServices(workspace.dir);
    for (const warning of warnings) {
      const key = `${workspace.id}:${warning.file}:${warning.message}`;
      if (this.warned.has(key)) continue;
      if (this.warned.size > 10_000) this.warned.clear();
      this.warned.add(key);
      this.options.logger.warn('service file ignored in part', { workspaceId: workspace.id, ...warning });
    }
    const services: Service[] = definitions.map((definition) =>
      toService(definition, this.run(workspace.id, definition.id)),
    );
    // A run whose file was deleted meanwhile still shows (it can be stopped).
    for (const run of this.runs.values()) {
      if (
        run.options.workspaceId === workspace.id &&
        !definitions.some((definition) => definition.id === run.id)
      ) {
        services.push(toService(run.options.definition, run));
      }
    }
    return { services, warnings };
  }

  async get(
    workspace: ServiceWorkspace,
    serviceId: string,
    options: { anyCase?: boolean } = {},
  ): Promise<Service> {
    const { definition, run } = await this.lookup(workspace, serviceId, options);
    return toService(definition, run);
  }

  /** Starts a service and answers at once; it spawns and waits for its port in the background. */
  async start(workspace: ServiceWorkspace, serviceId: string): Promise<void> {
    const { definition, run } = await this.lookup(workspace, serviceId);
    if (definition.passive) throw passive(serviceId);
    const key = keyOf(workspace.id, serviceId);
    // Two starts at once: the second sees the first's reservation (the port is chosen meanwhile).
    if (run?.active || this.starting.has(key)) {
      throw alreadyRunning(serviceId, run?.pid ?? null);
    }
    if (this.options.sandbox.mode === 'off') {
      throw new AppError(
        'SANDBOX_DISABLED',
        'Running repository code is disabled on this server (AUTOCODER_SANDBOX=off)',
      );
    }
    if (this.closed) throw new AppError('INTERNAL_ERROR', 'The server is shutting down');
    const limit = this.options.maxRunningPerUser ?? DEFAULT_MAX_RUNNING_PER_USER;
    if (this.activeOf(workspace.userId) >= limit) {
      throw tooMany(limit);
    }
    const declared = declaredPort(definition);
    let port: number | null = null;
    this.starting.set(key, workspace.userId);
    try {
      if (declared) port = declared.port === 'auto' ? await this.assignPort() : declared.port;
    } finally {
      this.starting.delete(key);
    }
    const managed = new ManagedService({
      workspaceId: workspace.id,
      ownerId: workspace.userId,
      workspaceDir: workspace.dir,
      definition,
      port,
      protocol: declared?.protocol ?? 'http',
      userEnv: workspace.serviceEnv,
      allowedHosts: workspace.allowedHosts ?? null,
      readOnlyPaths: workspace.readOnlyPaths,
      ...(this.options.prepare
        ? {
            prepare: (write: (stream: 'stdout' | 'stderr', text: string) => void, signal: AbortSignal) =>
              this.options.prepare!(workspace, write, signal),
          }
        : {}),
      sandbox: this.options.sandbox,
      log: new OutputLog(outputFile(this.options.dataDir, workspace.id, serviceId), (error) =>
        this.options.logger.warn('service output could not be written', { serviceId, error }),
      ),
      startTimeoutMs: this.options.startTimeoutMs ?? 120_000,
      stopGraceMs: this.options.stopGraceMs ?? 5000,
      now: this.options.now,
      logger: this.options.logger,
    });
    this.runs.set(key, managed);
    if (port !== null) this.ports.set(port, key);
    const held = this.holds.acquire(workspace);
    managed.once('end', () => {
      if (held) this.holds.release(workspace);
      if (port !== null && this.ports.get(port) === key) this.ports.delete(port);
      const forget = setTimeout(() => {
        if (this.runs.get(key) === managed) this.runs.delete(key);
      }, this.options.keepStoppedMs ?? 30_000);
      forget.unref();
    });
    this.options.logger.info('service starting', { workspaceId: workspace.id, serviceId, port });
    if (held) await held;
    void managed.start();
  }

  /** The user's services that run or are being set up, in every workspace. */
  private activeOf(userId: string): number {
    let count = 0;
    for (const run of this.runs.values()) if (run.active && run.options.ownerId === userId) count += 1;
    for (const owner of this.starting.values()) if (owner === userId) count += 1;
    return count;
  }

  /** Stops a running service (SIGTERM to its group, SIGKILL after the grace); resolves when it ended. */
  async stop(workspace: ServiceWorkspace, serviceId: string): Promise<void> {
    const { definition, run } = await this.lookup(workspace, serviceId);
    if (definition.passive) throw passive(serviceId);
    if (!run?.active) throw notRunning(serviceId);
    await run.stop();
  }

  /** The stored output and, while it runs, the run to follow. Read in one turn, so nothing falls between. */
  async output(workspace: ServiceWorkspace, serviceId: string): Promise<OutputFeed> {
    const { definition, run } = await this.lookup(workspace, serviceId);
    if (definition.passive) throw passive(serviceId);
    if (run) return feedOf(run);
    return {
      replay: await readOutputFile(outputFile(this.options.dataDir, workspace.id, serviceId)),
      follow: null,
    };
  }

  /** Where to proxy a service's requests: it must declare a port and, unless passive, be running. */
  async proxyTarget(
    workspace: ServiceWorkspace,
    serviceId: string,
    options: { anyCase?: boolean } = {},
  ): Promise<ProxyTarget> {
    const running = this.runningTarget(workspace.id, serviceId, options);
    if (running) return running;
    const { definition, run } = await this.lookup(workspace, serviceId, options);
    const declared = declaredPort(definition);
    if (!declared) throw noPort(definition.id);
    if (!definition.passive) {
      if (!run?.active || run.status === 'stopping' || run.port === null) throw notRunning(definition.id);
      const target = run.reach();
      if (!target) throw notListening(run.port);
      return target;
    }
    if (declared.port === 'auto')
      throw noPort(definition.id, 'A passive service needs a fixed port, not auto');
    const holder = this.ports.get(declared.port);
    if (
      (holder && !holder.startsWith(`${workspace.id}/`)) ||
      this.options.reservedPorts?.().includes(declared.port)
    ) {
      throw noPort(definition.id, `Port ${declared.port} belongs to another workspace or to AutoCoder`);
    }
    const endpoint = { host: '127.0.0.1', port: declared.port };
    return { endpoint, host: '127.0.0.1', port: declared.port, protocol: declared.protocol };
  }

  /** Stops every service of a workspace (its checkout went away). */
  async stopWorkspace(workspaceId: string): Promise<void> {
    const runs = [...this.runs.values()].filter(
      (run) => run.options.workspaceId === workspaceId && run.active,
    );
    await Promise.all(runs.map((run) => run.stop()));
  }

  /** Stops every service and writes their output (server shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.watcher);
    const runs = [...this.runs.values()];
    await Promise.all(runs.map((run) => run.stop()));
    await Promise.all(runs.map((run) => run.options.log.flush()));
    // Their project checkouts follow their branches again (a hold left now is released at start).
    await this.holds.settled();
  }

  /**
   * Where a running service listens, from memory alone (no disk, no database): the proxy's fast
   * path for every request once the service runs. Null when it is not running here, or, given
   * `ownerId`, when its workspace is not that user's.
   */
  runningTarget(
    workspaceId: string,
    serviceId: string,
    options: { anyCase?: boolean; ownerId?: string } = {},
  ): ProxyTarget | null {
    let run = this.run(workspaceId, serviceId);
    if (!run && options.anyCase) {
      const wanted = keyOf(workspaceId, serviceId).toLowerCase();
      const matches = [...this.runs.entries()].filter(([key]) => key.toLowerCase() === wanted);
      run = matches.length === 1 ? matches[0]?.[1] : undefined;
    }
    if (run?.status !== 'running' || !run.target) return null;
    if (options.ownerId !== undefined && run.options.ownerId !== options.ownerId) return null;
    return run.target;
  }

  /** The run of a service this process remembers (running, or ended less than 30 s ago). */
  run(workspaceId: string, serviceId: string): ManagedService | undefined {
    return this.runs.get(keyOf(workspaceId, serviceId));
  }

  /** The definition (the file now, or the remembered run's when the file is gone) and the run. */
  private async lookup(
    workspace: ServiceWorkspace,
    serviceId: string,
    options: { anyCase?: boolean } = {},
  ): Promise<{ definition: ServiceDefinition; run: ManagedService | undefined }> {
    const definition = await findService(workspace.dir, serviceId, options);
    const run = this.run(workspace.id, definition?.id ?? serviceId);
    if (definition) return { definition, run };
    if (run) return { definition: run.options.definition, run };
    throw notFound(serviceId);
  }

  private async assignPort(): Promise<number> {
    for (;;) {
      const port = await freePort();
      if (!this.ports.has(port)) return port;
    }
  }

  /** Stops the services whose checkout is gone (a run's worktree removed, a project deleted). */
  private async stopOrphans(): Promise<void> {
    const dirs = new Map<string, string>();
    for (const run of this.runs.values())
      if (run.active) dirs.set(run.options.workspaceId, run.options.workspaceDir);
    for (const [workspaceId, dir] of dirs) {
      if ((await stat(dir).catch(() => null))?.isDirectory()) continue;
      this.options.logger.info('workspace gone: stopping its services', { workspaceId });
      this.options.onWorkspaceGone?.(workspaceId);
      await this.stopWorkspace(workspaceId);
    }
  }
}

const keyOf = (workspaceId: string, serviceId: string) => `${workspaceId}/${serviceId}`;
