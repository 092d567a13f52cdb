import { EventEmitter } from 'node:events';
import { StringDecoder } from 'node:string_decoder';
import type { ServiceOutputEvent, ServiceStatus } from '@/contracts/services.js';
import type { Logger } from '@/server/lib/logger.js';
import type { OutputStream, Sandbox, SandboxedProcess } from '../sandbox/sandbox.js';
import type { ServiceDefinition } from './discovery.js';
import type { OutputLog } from './output-log.js';
import { listeningOn } from './ports.js';
import type { ProxyTarget } from './proxy-target.js';
import { waitForAnswer } from './readiness.js';

/** What a service needs of the sandbox: starting a process it keeps alive. */
export type ServiceSandbox = Pick<Sandbox, 'spawn' | 'mode'>;

/** Longest piece of output in one event, in characters. */
const MAX_EVENT_CHARS = 16_384;

export interface ManagedServiceOptions {
  workspaceId: string;
  /** The user whose workspace it is: the path proxy's check without the database. */
  ownerId: string;
  workspaceDir: string;
  definition: ServiceDefinition;
  /** The port the service listens on inside its sandbox (fixed, or assigned for `auto`); null: it has none. */
  port: number | null;
  /** What the port speaks (the front matter's `http` or `https`). */
  protocol: 'http' | 'https';
  /** The project's own variables for its services (project settings). */
  userEnv: Record<string, string>;
  /** The project's network allow-list; null: the operator's. */
  allowedHosts?: readonly string[] | null;
  /** Visible read-only in the sandbox: the project's git directory a run's worktree points to. */
  readOnlyPaths: readonly string[];
  sandbox: ServiceSandbox;
  /** Readies the checkout first (the project's setup); its output goes to the service's log. */
  prepare?:
    | ((write: (stream: 'stdout' | 'stderr', text: string) => void, signal: AbortSignal) => Promise<void>)
    | undefined;
  log: OutputLog;
  /** Past this, a service whose port has not answered is `error` and is stopped. */
  startTimeoutMs: number;
  /** SIGTERM to SIGKILL, when stopped (seed 002: 5 s). */
  stopGraceMs: number;
  now: () => number;
  logger: Logger;
}

/**
 * One run of one service: its process group in the sandbox, its state in the seed's lifecycle
 * (starting → running when its port answers HTTP → stopping → stopped; error when it ended on
 * its own with a failure or its port never answered), and its output, appended to the log and
 * emitted as `output` events; `end` once the process has ended and its exit is logged.
 */
export class ManagedService extends EventEmitter<{ output: [ServiceOutputEvent]; end: [] }> {
  status: ServiceStatus = 'starting';
  pid: number | undefined;
  readonly startedAt: Date;
  exitCode: number | null | undefined;
  error: string | undefined;
  /** Where the proxy reaches the service, once its port answered. */
  target: ProxyTarget | null = null;
  /** Resolves when the process has ended (or never started) and its exit is logged. */
  readonly ended: Promise<void>;
  private proc: SandboxedProcess | null = null;
  private readonly stopping = new AbortController();
  private markEnded!: () => void;
  /** The process has ended (or could not start) and its exit is logged. */
  private done = false;

  constructor(readonly options: ManagedServiceOptions) {
    super();
    this.setMaxListeners(0);
    this.startedAt = new Date(options.now());
    this.ended = new Promise((resolve) => {
      this.markEnded = resolve;
    });
  }

  get id(): string {
    return this.options.definition.id;
  }

  get port(): number | null {
    return this.options.port;
  }

  /** True from start until the process has ended. */
  get active(): boolean {
    return !this.done;
  }

  /**
   * Where the proxy reaches the service: where it answered once running, its IPv4 loopback while
   * it starts (a request then meets a refusal: it is not listening yet); null before its process
   * exists.
   */
  reach(): ProxyTarget | null {
    if (this.target) return this.target;
    const { port, protocol } = this.options;
    if (!this.proc || port === null) return null;
    return { endpoint: this.proc.endpoint(port, '127.0.0.1'), host: '127.0.0.1', port, protocol };
  }

  /** Spawns the process and follows it until it runs, fails to open its port, or ends. Never throws. */
  async start(): Promise<void> {
    const { options } = this;
    options.log.clear();
    if (options.prepare) {
      try {
        await options.prepare(
          (stream, text) => this.record({ type: stream, data: text, timestamp: this.timestamp() }),
          this.stopping.signal,
        );
      } catch (error) {
        this.finish(
          null,
          `the project's setup failed: ${error instanceof Error ? error.message : String(error)}`,
        );
        return;
      }
      if (this.done || this.stopping.signal.aborted) return this.finish(null, undefined);
    }
    const { port, protocol } = options;
    // Where the sandbox shares the host's network, a port that accepts connections before the
    // service starts is another program's, and the service must not be taken for it. Only the
    // process's endpoint says whether it does, and only before the spawn is the answer free of
    // the service's own listener: asked now, judged below. A network of its own has every port free.
    const taken = port !== null ? await listeningOn(port) : null;
    try {
      this.proc = await options.sandbox.spawn({
        command: [options.definition.file],
        cwd: options.workspaceDir,
        userEnv: options.userEnv,
        allowedHosts: options.allowedHosts ?? null,
        ...(port !== null ? { env: { PORT: String(port) }, expose: [port] } : {}),
        readOnlyPaths: options.readOnlyPaths,
      });
    } catch (error) {
      this.finish(null, `could not start: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    const proc = this.proc;
    this.pid = proc.child.pid;
    this.forward(proc, 'stdout');
    this.forward(proc, 'stderr');
    void proc.exited.then((exit) => {
      // A limit of the sandbox ended it: said in its log too, where its owner looks first.
      if (exit.limit) this.note(exit.limit);
      const reason = exit.limit
        ? exit.limit
        : exit.error
          ? `could not start: ${exit.error}`
          : exit.exitCode === 0
            ? undefined
            : exit.signal
              ? `ended by ${exit.signal}`
              : `exited with code ${exit.exitCode}`;
      this.finish(exit.exitCode, reason);
    });
    if (this.stopping.signal.aborted) {
      // Stopped while it was spawning: stop() found no process to stop yet.
      await proc.stop(options.stopGraceMs);
      return;
    }
    if (port === null) {
      this.status = 'running';
      return;
    }
    if (taken !== null && !('socketPath' in proc.endpoint(port, taken))) {
      await this.fail(proc, `port ${port} is already in use by another process`);
      return;
    }
    const answered = await waitForAnswer((host) => proc.endpoint(port, host), {
      port,
      protocol,
      timeoutMs: options.startTimeoutMs,
      signal: this.stopping.signal,
    });
    if (this.done || this.status === 'stopping') return;
    if (answered) {
      this.target = { ...answered, port, protocol };
      this.status = 'running';
      return;
    }
    const seconds = Math.round(options.startTimeoutMs / 100) / 10;
    await this.fail(proc, `port ${port} did not answer ${protocol.toUpperCase()} within ${seconds} s`);
  }

  /** Ends a run that started but cannot serve: `error` with the reason, also in its stderr. */
  private async fail(proc: SandboxedProcess, reason: string): Promise<void> {
    this.error = reason;
    this.note(`${reason}; stopping it`);
    this.status = 'error';
    await proc.stop(this.options.stopGraceMs);
  }

  /** SIGTERM to the process group, SIGKILL after the grace; resolves once it has ended. */
  async stop(): Promise<void> {
    if (!this.done && this.status !== 'error') this.status = 'stopping';
    this.stopping.abort();
    await this.proc?.stop(this.options.stopGraceMs);
    await this.ended;
  }

  private forward(proc: SandboxedProcess, stream: OutputStream): void {
    const decoder = new StringDecoder('utf8');
    const emit = (text: string) => {
      for (let at = 0; at < text.length; at += MAX_EVENT_CHARS) {
        this.record({
          type: stream,
          data: text.slice(at, at + MAX_EVENT_CHARS),
          timestamp: this.timestamp(),
        });
      }
    };
    proc.child[stream]?.on('data', (chunk: Buffer) => emit(decoder.write(chunk)));
    proc.child[stream]?.on('end', () => emit(decoder.end()));
  }

  /** A line of AutoCoder's own in the service's stderr (why it was stopped). */
  private note(text: string): void {
    this.record({ type: 'stderr', data: `[autocoder] ${text}\n`, timestamp: this.timestamp() });
  }

  private record(event: ServiceOutputEvent): void {
    this.options.log.append(event);
    this.emit('output', event);
  }

  private finish(exitCode: number | null, reason: string | undefined): void {
    if (this.done) return;
    this.done = true;
    this.exitCode = exitCode;
    if (this.status === 'stopping') this.status = 'stopped';
    else if (this.status !== 'error') {
      if (reason) {
        this.error = reason;
        if (!this.proc) this.note(reason);
        this.status = 'error';
      } else this.status = 'stopped';
    }
    this.stopping.abort();
    this.record({ type: 'exit', exitCode, timestamp: this.timestamp() });
    void this.options.log.flush();
    this.options.logger.info('service ended', {
      workspaceId: this.options.workspaceId,
      serviceId: this.id,
      exitCode,
      status: this.status,
    });
    this.emit('end');
    this.markEnded();
  }

  private timestamp(): string {
    return new Date(this.options.now()).toISOString();
  }
}
