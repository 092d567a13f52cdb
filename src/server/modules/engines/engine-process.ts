import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import type { Sandbox, SandboxedProcess, SandboxRelay } from '../sandbox/sandbox.js';

/** The ports of the model relay and of the lock tools on the sandbox's own loopback (bwrap mode). */
export const RELAY_PORT = 41_100;
export const LOCK_TOOLS_PORT = 41_101;
/** SIGTERM to SIGKILL when a step is cancelled: the whole sandbox ends within about a second. */
export const ENGINE_STOP_GRACE_MS = 1_000;
/** The end of an engine's stderr kept for its error message. */
const STDERR_TAIL_CHARS = 4_000;

export type EngineSandbox = Pick<Sandbox, 'spawn' | 'mode'>;

/** A server of AutoCoder's own an engine reaches (the model relay, the lock tools). */
export interface Listenable {
  listen(socketPath: string): Promise<void>;
  listenLoopback(): Promise<number>;
}

/**
 * Where the engine finds one of AutoCoder's servers: on the sandbox's own loopback at `port`
 * (bwrap: a Unix socket bridged in, the relay the spawn must be given), or on the host's loopback
 * (host mode, where the engine runs as the server's user).
 */
export async function insideAddress(
  sandbox: EngineSandbox,
  port: number,
  server: Listenable,
): Promise<{ url: string; relay?: SandboxRelay }> {
  if (sandbox.mode === 'bwrap') {
    return {
      url: `http://127.0.0.1:${port}`,
      relay: { port, listen: (socketPath) => server.listen(socketPath) },
    };
  }
  return { url: `http://127.0.0.1:${await server.listenLoopback()}` };
}

/**
 * A sandboxed engine process as a `ChildProcess`-like object made synchronously (the Claude Agent
 * SDK's `spawnClaudeCodeProcess` must return at once; the sandbox starts asynchronously): stdin
 * and stdout are joined to the real process once it runs, `kill` stops the whole sandbox.
 */
export class DeferredProcess extends EventEmitter {
  readonly stdin = new PassThrough();
  readonly stdout = new PassThrough();
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  killed = false;
  /** A limit of the sandbox that ended it (memory, processes). */
  limit: string | undefined;
  private stderrTail = '';
  private proc: SandboxedProcess | undefined;
  /** Resolves once the process has ended (or could not start). */
  readonly ended: Promise<void>;

  constructor(
    starting: Promise<SandboxedProcess>,
    private readonly onStderr?: (text: string) => void,
  ) {
    super();
    let end = () => {};
    this.ended = new Promise<void>((resolve) => {
      end = resolve;
    });
    starting.then(
      (proc) => {
        this.proc = proc;
        if (this.killed) void proc.stop(ENGINE_STOP_GRACE_MS);
        const { stdin, stdout, stderr } = proc.child;
        if (stdin) {
          stdin.on('error', () => {}); // the engine ended while we wrote
          this.stdin.pipe(stdin);
        }
        stdout?.pipe(this.stdout);
        stderr?.setEncoding('utf8');
        stderr?.on('data', (chunk: string) => {
          this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
          this.onStderr?.(chunk);
        });
        void proc.exited.then((exit) => {
          this.exitCode = exit.exitCode;
          this.signalCode = exit.signal;
          if (exit.limit) this.limit = exit.limit;
          this.stdout.end();
          this.emit('exit', exit.exitCode, exit.signal);
          end();
        });
      },
      (error: unknown) => {
        this.stdout.end();
        this.exitCode = 127;
        this.emit('error', error instanceof Error ? error : new Error(String(error)));
        this.emit('exit', 127, null);
        end();
      },
    );
  }

  /** The end of what the engine wrote on stderr. */
  get stderr(): string {
    return this.stderrTail;
  }

  kill(_signal?: NodeJS.Signals): boolean {
    this.killed = true;
    if (this.proc) void this.proc.stop(ENGINE_STOP_GRACE_MS);
    return true;
  }

  /** Stops the whole sandbox (SIGTERM, SIGKILL after the grace) and waits for it. */
  async stop(): Promise<void> {
    this.killed = true;
    if (this.proc) await this.proc.stop(ENGINE_STOP_GRACE_MS);
    await this.ended;
  }
}
