import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { AppError } from '@/server/lib/errors.js';
import { launchBwrap, type SandboxNetwork } from './bwrap-launch.js';
import { cgroupEntryArgv, createSandboxCgroup, type SandboxLimits } from './cgroups.js';
import type { AvailableCgroups } from './cgroups-probe.js';
import { type Exit, stopGroup, watchGroup } from './process-group.js';
import { runToEnd } from './run-to-end.js';
import { sandboxEnv } from './sandbox-env.js';
import { DEFAULT_SANDBOX_USER, findProgram, type SandboxMode } from './sandbox-mode.js';
import type { RunOptions, Sandbox, SandboxedProcess, SpawnOptions } from './sandbox-types.js';

export type {
  Endpoint,
  OutputStream,
  RunOptions,
  RunResult,
  Sandbox,
  SandboxedProcess,
  SandboxRelay,
  SpawnOptions,
} from './sandbox-types.js';

const DEFAULT_GRACE_MS = 2_000;

export interface SandboxConfig {
  mode: SandboxMode;
  /** Where bwrap is (mode bwrap). */
  bwrapPath: string | null;
  /** The PATH sandboxed commands get. */
  path: string;
  /** Directories no sandboxed process may see: AutoCoder's data dir, a database directory outside it. */
  hidden: readonly string[];
  /** Home directory whose credential files are hidden; the server user's by default. */
  home?: string;
  /** SIGTERM to SIGKILL, when a process is stopped. */
  killGraceMs?: number;
  /**
   * When the server runs as root (bwrap mode), sandboxed commands run as this uid and gid instead
   * (DEFAULT_SANDBOX_USER unless given), and the files of the tree they work in are handed to it
   * first. A server that is not root: the command keeps the server's uid inside a user namespace
   * of its own, with no capability.
   */
  user?: { uid: number; gid: number } | undefined;
  /** The server's uid (`process.getuid()` unless given: tests). */
  serverUid?: number | undefined;
  /** Size of a sandbox's private /tmp in bwrap mode, in bytes (default 1 GiB). */
  tmpBytes?: number | undefined;
  /** The most a worktree may grow in one run to its end (a check's step), in bytes; unset: no cap. */
  maxGrowthBytes?: number | undefined;
  /** What sandboxed processes may reach through the egress proxies (bwrap mode); unset: nothing. */
  network?: SandboxNetwork | undefined;
  /** Each process runs in a cgroup of its own with these limits (cgroups.ts); unset: no limits. */
  limits?: { cgroups: AvailableCgroups; limits: SandboxLimits } | undefined;
  /**
   * Why repository code may not run at all on this server (no cgroups on a server others can reach,
   * and the operator did not choose AUTOCODER_SANDBOX_LIMITS=none): every spawn is refused with it.
   */
  refused?: string | undefined;
}

const DEFAULT_TMP_BYTES = 1024 * 1024 * 1024;

/**
 * The one way AutoCoder starts a process that runs repository code (checks now, services later).
 * See docs/sandbox.md for what each mode isolates.
 */
export function createSandbox(config: SandboxConfig): Sandbox {
  const live = new Set<SandboxedProcess>();
  const graceMs = config.killGraceMs ?? DEFAULT_GRACE_MS;
  const home = config.home ?? homedir();
  const root = (config.serverUid ?? process.getuid?.() ?? -1) === 0;
  const dropTo = config.mode === 'bwrap' && root ? (config.user ?? DEFAULT_SANDBOX_USER) : undefined;
  const setprivPath = findProgram('setpriv', config.path);
  const socatPath = findProgram('socat', config.path);
  if (dropTo && !setprivPath) {
    throw new Error(
      'the server runs as root and setpriv (util-linux) was not found on PATH: it switches sandboxed commands to an unprivileged uid',
    );
  }

  async function spawnSandboxed(options: SpawnOptions): Promise<SandboxedProcess> {
    if (config.mode === 'off') {
      throw new AppError(
        'SANDBOX_DISABLED',
        'Running repository code is disabled on this server (AUTOCODER_SANDBOX=off)',
      );
    }
    if (config.refused) throw new AppError('SANDBOX_DISABLED', config.refused);
    const [program, ...args] = options.command;
    if (!program) throw new Error('an empty command cannot run');
    const worktree = await realpath(options.cwd);
    const privateTmp = await mkdtemp(path.join(tmpdir(), 'autocoder-sandbox-'));
    let child: ChildProcess;
    /** bwrap's report of its init's pid; none in host mode. */
    let inner: Promise<number | null> | undefined;
    /** Exposed port → the Unix socket of its bridge, per loopback address (bwrap mode). */
    let bridged = new Map<string, string>();
    let release = async () => {};
    let networkNote = (_output: string): string | null => null;
    const group = config.limits
      ? await createSandboxCgroup(
          config.limits.cgroups,
          `s-${randomBytes(8).toString('hex')}`,
          config.limits.limits,
        )
      : null;
    const wrap = group ? (argv: string[]) => cgroupEntryArgv(group.procsFiles, argv) : undefined;
    try {
      if (config.mode === 'bwrap') {
        if (!config.bwrapPath) throw new Error('bwrap mode without a bwrap program');
        const launch = await launchBwrap(
          {
            bwrapPath: config.bwrapPath,
            path: config.path,
            hidden: config.hidden,
            home,
            tmpBytes: config.tmpBytes ?? DEFAULT_TMP_BYTES,
            dropTo,
            setprivPath,
            socatPath,
            network: config.network,
          },
          {
            argv: [program, ...args],
            worktree,
            runDir: privateTmp,
            env: options.env,
            userEnv: options.userEnv,
            readOnlyPaths: options.readOnlyPaths,
            expose: options.expose,
            allowedHosts: options.allowedHosts,
            wrap,
            stdin: options.stdin,
            relays: options.relays,
            writablePaths: options.writablePaths,
            agentEnv: options.agentEnv,
          },
        );
        child = launch.child;
        inner = launch.inner;
        bridged = launch.bridged;
        release = launch.release;
        networkNote = launch.networkNote;
      } else {
        if (options.relays?.length) {
          throw new Error(
            'relays into a sandbox need bwrap mode: in host mode the process reaches loopback itself',
          );
        }
        const env = sandboxEnv({
          path: config.path,
          home: privateTmp,
          extra: options.env,
          user: options.userEnv,
          agent: options.agentEnv,
        });
        const [first, ...rest] = wrap ? wrap([program, ...args]) : [program, ...args];
        child = spawn(first as string, rest, {
          cwd: worktree,
          env,
          detached: true,
          stdio: [options.stdin ?? 'ignore', 'pipe', 'pipe'],
        });
      }
    } catch (error) {
      await group?.remove();
      await rm(privateTmp, { recursive: true, force: true });
      throw error;
    }
    let limit: string | null = null;
    const unwatch = group?.watch((reason, killed) => {
      limit = reason;
      killed.catch(() => {}); // the group is removed below, which kills again and waits
    });
    const exited = watchGroup(child).then(async (exit): Promise<Exit> => {
      live.delete(handle);
      unwatch?.();
      if (group) {
        limit ??= await group.outcome().catch(() => null);
        await group.remove().catch(() => {});
      }
      await release();
      await rm(privateTmp, { recursive: true, force: true });
      return limit ? { ...exit, limit } : exit;
    });
    const handle: SandboxedProcess = {
      child,
      exited,
      stop: (grace = graceMs) => stopGroup(child, exited, grace, inner),
      networkNote: (output) => networkNote(output),
      endpoint(port, host) {
        if (config.mode !== 'bwrap') return { host, port };
        const socketPath = bridged.get(`${host} ${port}`);
        if (!socketPath) throw new Error(`port ${port} was not exposed when the process started`);
        return { socketPath };
      },
    };
    live.add(handle);
    return handle;
  }

  const run = (options: RunOptions) => runToEnd(spawnSandboxed, options, config.maxGrowthBytes);

  return {
    mode: config.mode,
    summary: {
      uid: dropTo?.uid ?? 'server',
      limits: config.limits
        ? `cgroup v${config.limits.cgroups.version}`
        : config.refused
          ? 'refused'
          : 'none',
      allowedHosts: config.mode === 'bwrap' ? (config.network?.allowList.length ?? 0) : 0,
    },
    spawn: spawnSandboxed,
    run,
    async close() {
      await Promise.all([...live].map((proc) => proc.stop()));
    },
  };
}

export { MAX_OUTPUT_CHUNK } from './run-to-end.js';
