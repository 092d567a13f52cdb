import type { ChildProcess } from 'node:child_process';
import type { Exit } from './process-group.js';
import type { SandboxMode } from './sandbox-mode.js';

export interface SpawnOptions {
  /** The program and its arguments; no shell unless the caller asks for one (`['sh', '-c', …]`). */
  command: readonly string[];
  /** The worktree: the working directory and the only writable place besides the private /tmp. */
  cwd: string;
  /** Extra variables; AutoCoder's own and credentials are refused. */
  env?: Record<string, string>;
  /** Variables a project's owner set for their services (their own values, any name but the sandbox's own). */
  userEnv?: Record<string, string>;
  /**
   * Visible read-only even inside a hidden directory: the project's git directory (`<repo>/.git`),
   * which the worktree's `.git` file points into, so that git works in the check. Take it from the
   * project's record, never from the worktree's `.git` file.
   */
  readOnlyPaths?: readonly string[];
  /**
   * Ports the process will listen on (inside the sandbox, on 127.0.0.1 or ::1) that the server must
   * reach: a service's HTTP port. The sandbox has no network of its own, so each is reached through
   * `SandboxedProcess.endpoint`.
   */
  expose?: readonly number[];
  /**
   * The project's own network allow-list (entries as `sandboxAllowedHosts` stores them), within the
   * operator's; undefined or null: the operator's list.
   */
  allowedHosts?: readonly string[] | null | undefined;
  /**
   * Directories of the server's own, bound writable at their own path (a project's package-manager
   * cache, shared by that project's installs); handed to the sandbox's uid first.
   */
  writablePaths?: readonly string[] | undefined;
  /** stdin a pipe the caller writes (a coding agent's control messages); closed by default. */
  stdin?: 'pipe' | undefined;
  /**
   * Servers of AutoCoder's own the process reaches on its loopback (bwrap mode only): a coding
   * agent's model relay. Inside, 127.0.0.1:<port> is forwarded to a Unix socket the sandbox makes
   * in its private run directory and hands to `listen` before the process starts.
   */
  relays?: readonly SandboxRelay[] | undefined;
  /**
   * Variables of a coding agent engine (its endpoint, a relay inside; a placeholder credential;
   * its switches), set after the sandbox's own and the caller's. Never a server secret: the
   * engine's real credential stays with the relay.
   */
  agentEnv?: Record<string, string> | undefined;
}

export interface SandboxRelay {
  /** The port on the sandbox's 127.0.0.1. */
  port: number;
  /** Starts serving on `socketPath`; the caller stops it after the process has ended. */
  listen(socketPath: string): Promise<void>;
}

/** How the server reaches a port a sandboxed process listens on. */
export type Endpoint = { host: string; port: number } | { socketPath: string };

export type OutputStream = 'stdout' | 'stderr';

export interface RunOptions extends SpawnOptions {
  /** The process group is stopped after this many ms (`timedOut`). */
  timeoutMs: number;
  /** Aborting stops the process group (`aborted`). */
  signal?: AbortSignal;
  /** Output as it comes, decoded as UTF-8, in pieces of at most MAX_OUTPUT_CHUNK characters. */
  onOutput?: (stream: OutputStream, chunk: string) => void;
}

export interface RunResult {
  /** Null when the process was ended by a signal (timeout, abort) or could not start. */
  exitCode: number | null;
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
  /** The last 4 KB of stdout and stderr together, as they arrived. */
  tail: string;
  /** A limit of the sandbox ended it: `memory limit 2048 MB reached`, `process limit 512 reached`. */
  limit?: string | undefined;
}

/** A process running in the sandbox, for callers that keep one alive (services). */
export interface SandboxedProcess {
  /** stdout and stderr are pipes; stdin is closed, or a pipe when asked for (`SpawnOptions.stdin`). */
  readonly child: ChildProcess;
  /** Resolves once the process group's leader has ended and its output is closed. */
  readonly exited: Promise<Exit>;
  /** SIGTERM to the whole group, SIGKILL after the grace; resolves when it has ended. */
  stop(graceMs?: number): Promise<void>;
  /**
   * Where to connect for an exposed port (see `SpawnOptions.expose`) on the loopback address the
   * process listens on inside: a Unix socket bridged into the sandbox, or the host's own loopback
   * where the sandbox shares the host's network (host mode).
   */
  endpoint(port: number, host: '127.0.0.1' | '::1'): Endpoint;
  /**
   * For a command that failed: that its sandbox had no network, or which hosts the egress proxies
   * refused it; null when there is nothing to say (or in host mode).
   */
  networkNote?(output: string): string | null;
}

export interface Sandbox {
  readonly mode: SandboxMode;
  /**
   * What the operator should know at start-up: the uid commands run as, the limits (`cgroup v1`,
   * `none`), and how many allow-list entries the egress proxies admit (0: no network).
   */
  readonly summary: { uid: number | 'server'; limits: string; allowedHosts: number };
  /** Starts a process; the caller reads its output and must stop it or await `exited`. */
  spawn(options: SpawnOptions): Promise<SandboxedProcess>;
  /** Runs a process to its end (or its timeout, or the abort) and reports how it ended. */
  run(options: RunOptions): Promise<RunResult>;
  /** Stops every process still running (server shutdown). */
  close(): Promise<void>;
}
