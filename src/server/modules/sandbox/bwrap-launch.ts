import { type ChildProcess, spawn } from 'node:child_process';
import { chown, stat } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { HostPattern } from '@/contracts/sandbox-hosts.js';
import type { Logger } from '@/server/lib/logger.js';
import { type ExposedPort, type InsideListener, withBridges } from './bridges.js';
import { BWRAP_SECCOMP_FD, type BwrapLayout, bwrapArgs } from './bwrap-args.js';
import { INSIDE_PROXY_PORTS, nodeBridgeArgv, proxyEnv } from './egress/bridge.js';
import type { AddressPolicy, DenyReason, EgressLookup } from './egress/egress-dial.js';
import { createEgressProxy, type EgressProxy } from './egress/egress-proxy.js';
import { allowListPredicate, narrowAllowList, parseAllowList } from './egress/host-allow-list.js';
import { handOver } from './hand-over.js';
import { sandboxInitPid } from './process-group.js';
import { sandboxEnv } from './sandbox-env.js';
import type { SandboxRelay } from './sandbox-types.js';
import { seccompProgram } from './seccomp.js';

/**
 * Files and directories that hold the operator's credentials in the server user's home: hidden
 * from a sandboxed process even though the rest of the filesystem is readable.
 */
const HOME_SECRETS = [
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.kube',
  '.docker',
  '.config/gcloud',
  '.config/gh',
  '.netrc',
  '.npmrc',
  '.pypirc',
  '.git-credentials',
  '.pgpass',
];

/** Local sockets of services a check has no business talking to (the database among them). */
const SERVICE_SOCKETS = ['/run/postgresql', '/run/redis', '/run/mysqld', '/run/docker.sock', '/run/dbus'];

/** What sandboxed processes may reach: AUTOCODER_SANDBOX_ALLOWED_HOSTS and the address rules. */
export interface SandboxNetwork {
  /** The operator's list; empty: no network at all. */
  allowList: readonly HostPattern[];
  /** Which addresses a listed host may reach (never loopback or private, unless the operator says). */
  policy: AddressPolicy;
  logger: Pick<Logger, 'info'>;
  /** DNS, for tests. */
  lookup?: EgressLookup | undefined;
}

/** The parts of the sandbox's configuration a bwrap launch needs. */
export interface BwrapContext {
  bwrapPath: string;
  path: string;
  hidden: readonly string[];
  home: string;
  tmpBytes: number;
  dropTo: { uid: number; gid: number } | undefined;
  setprivPath: string | null;
  socatPath: string | null;
  network: SandboxNetwork | undefined;
}

export interface BwrapRequest {
  argv: readonly string[];
  worktree: string;
  /** A private host directory of this process (0700): the bridges' sockets live there. */
  runDir: string;
  env?: Record<string, string> | undefined;
  userEnv?: Record<string, string> | undefined;
  readOnlyPaths?: readonly string[] | undefined;
  expose?: readonly number[] | undefined;
  /** The project's own allow-list; undefined or null: the operator's. */
  allowedHosts?: readonly string[] | null | undefined;
  /** Wraps the final argv (the cgroup's entry). */
  wrap?: ((argv: string[]) => string[]) | undefined;
  stdin?: 'pipe' | undefined;
  relays?: readonly SandboxRelay[] | undefined;
  writablePaths?: readonly string[] | undefined;
  agentEnv?: Record<string, string> | undefined;
}

export interface BwrapLaunch {
  child: ChildProcess;
  /** bwrap's report of its init's pid. */
  inner: Promise<number | null>;
  /** `${host} ${port}` → the Unix socket bridged to it. */
  bridged: Map<string, string>;
  /** Stops what the launch started besides the process (the egress proxies). */
  release(): Promise<void>;
  /**
   * What to tell a person whose command failed: that the sandbox has no network at all (when its
   * output shows a network failure), or which hosts the proxies refused.
   */
  networkNote(output: string): string | null;
}

/** How clients say a name or a connection failed: the sign that an offline sandbox's command wanted the network. */
const NETWORK_TROUBLE =
  /EAI_AGAIN|ENOTFOUND|ECONNREFUSED|ENETUNREACH|getaddrinfo|Could not resolve|Temporary failure in name resolution|Network is unreachable|Name or service not known|No address associated/i;

/** Refusals kept for the note, per process. */
const MAX_NOTED_DENIALS = 5;

/**
 * The outermost directory on the way to `dir` (itself included) that others may not enter, or `dir`.
 * The sandbox's own uid could not pass it anyway, so hiding it instead of `dir` hides nothing more
 * it could read, and lets bwrap lay the worktree's path out in the tmpfs (data in `/root/…`).
 */
async function outermostClosed(dir: string): Promise<string> {
  const parts = path.resolve(dir).split(path.sep).filter(Boolean);
  for (let depth = 1; depth <= parts.length; depth++) {
    const ancestor = path.sep + parts.slice(0, depth).join(path.sep);
    const info = await stat(ancestor).catch(() => null);
    if (info && (info.mode & 0o001) === 0) return ancestor;
  }
  return dir;
}

/**
 * The directories a root server's sandbox replaces with a tmpfs: for each hidden directory and each
 * read-only path (an engine's program under /root, say), the outermost directory on its way that
 * the sandbox's uid could not enter anyway, so that bwrap can lay the path out inside the tmpfs.
 * Nested ones are left out (the outer tmpfs covers them).
 */
async function closedAncestors(paths: readonly string[]): Promise<string[]> {
  const closed = [...new Set(await Promise.all(paths.map(outermostClosed)))];
  return closed.filter(
    (dir) => !closed.some((other) => other !== dir && dir.startsWith(`${other}${path.sep}`)),
  );
}

/** Paths among `candidates` that exist, split into directories and other files. */
export async function existing(candidates: readonly string[]): Promise<{ dirs: string[]; files: string[] }> {
  const dirs: string[] = [];
  const files: string[] = [];
  for (const candidate of candidates) {
    const info = await stat(candidate).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return null;
      throw error;
    });
    if (!info) continue;
    (info.isDirectory() ? dirs : files).push(candidate);
  }
  return { dirs, files };
}

/** The egress proxies of one sandbox, when its list admits anything. */
async function startEgress(
  context: BwrapContext,
  request: BwrapRequest,
  onDenied: (host: string, port: number, reason: DenyReason) => void,
): Promise<{ proxy: EgressProxy; listeners: InsideListener[] } | null> {
  const network = context.network;
  if (!network || network.allowList.length === 0) return null;
  const own = request.allowedHosts ? parseAllowList(request.allowedHosts).patterns : undefined;
  const list = narrowAllowList(network.allowList, own);
  if (list.length === 0) return null;
  const proxy = await createEgressProxy({
    socketDir: request.runDir,
    allow: allowListPredicate(list),
    policy: network.policy,
    lookup: network.lookup,
    logger: network.logger,
    socketOwner: context.dropTo,
    onDenied,
  });
  return {
    proxy,
    listeners: [
      { port: INSIDE_PROXY_PORTS.http, socket: proxy.httpSocketPath },
      { port: INSIDE_PROXY_PORTS.socks, socket: proxy.socksSocketPath },
    ],
  };
}

/**
 * Starts the caller's relays on Unix sockets in the run directory (the sandbox's uid may connect),
 * each to be reached inside on its loopback port.
 */
async function listenRelays(
  relays: readonly SandboxRelay[],
  runDir: string,
  dropTo: { uid: number; gid: number } | undefined,
): Promise<InsideListener[]> {
  const listeners: InsideListener[] = [];
  for (const relay of relays) {
    const socket = path.join(runDir, `relay-${relay.port}.sock`);
    await relay.listen(socket);
    if (dropTo) await chown(socket, dropTo.uid, dropTo.gid);
    listeners.push({ port: relay.port, socket });
  }
  return listeners;
}

/**
 * Starts one command in bubblewrap (see bwrap-args.ts for the layout): hands the worktree to the
 * sandbox's uid (root server), starts the egress proxies its allow-list calls for, bridges its
 * exposed ports, and feeds bwrap the seccomp filter.
 */
export async function launchBwrap(context: BwrapContext, request: BwrapRequest): Promise<BwrapLaunch> {
  const { worktree, runDir, dropTo } = { ...request, dropTo: context.dropTo };
  const secrets = await existing([
    ...context.hidden.map((dir) => path.resolve(dir)),
    ...HOME_SECRETS.map((name) => path.join(context.home, name)),
    ...SERVICE_SOCKETS,
  ]);
  const gitLink = await existing([path.join(worktree, '.git')]);
  const bridged = new Map<string, string>();
  const exposed: ExposedPort[] = [];
  for (const port of request.expose ?? []) {
    for (const host of ['127.0.0.1', '::1'] as const) {
      const socket = path.join(runDir, `p${port}-${host === '::1' ? 6 : 4}.sock`);
      exposed.push({ socket, host, port });
      bridged.set(`${host} ${port}`, socket);
    }
  }
  if (exposed.length > 0 && !context.socatPath) {
    throw new Error('exposing a port from the sandbox needs socat (Debian: apt-get install socat)');
  }
  if (dropTo) {
    await handOver(worktree, dropTo);
    for (const dir of request.writablePaths ?? []) await handOver(dir, dropTo);
    await chown(runDir, dropTo.uid, dropTo.gid);
  }
  const denied = new Map<string, DenyReason>();
  const egress = await startEgress(context, request, (host, port, reason) => {
    if (denied.size < MAX_NOTED_DENIALS) denied.set(`${host}:${port}`, reason);
  });
  try {
    const relayed = await listenRelays(request.relays ?? [], runDir, dropTo);
    const env = sandboxEnv({
      path: context.path,
      home: '/tmp',
      extra: { ...request.env, ...(egress ? proxyEnv() : {}) },
      user: request.userEnv,
      agent: request.agentEnv,
    });
    const seccomp = seccompProgram();
    const layout: BwrapLayout = {
      worktree,
      tmpBytes: context.tmpBytes,
      hiddenDirs: dropTo
        ? await closedAncestors([...secrets.dirs, ...(request.readOnlyPaths ?? [])])
        : secrets.dirs,
      hiddenFiles: secrets.files,
      readOnly: request.readOnlyPaths ?? [],
      writable: request.writablePaths ?? [],
      readOnlyInWorktree: [...gitLink.files, ...gitLink.dirs],
      runDir: exposed.length > 0 || egress || relayed.length > 0 ? runDir : undefined,
      dropTo,
      setpriv: context.setprivPath ?? undefined,
      seccompFd: seccomp ? BWRAP_SECCOMP_FD : undefined,
    };
    const listeners = [...(egress?.listeners ?? []), ...relayed];
    let argv: string[];
    if (context.socatPath || (listeners.length === 0 && exposed.length === 0)) {
      argv = withBridges({ socat: context.socatPath ?? 'socat', listeners, exposed }, request.argv);
    } else {
      // No socat on this host: the Node bridge carries egress (it starts the command once it listens).
      const bridge = listeners.map((listener) => ({ port: listener.port, socketPath: listener.socket }));
      argv = nodeBridgeArgv(process.execPath, bridge, request.argv);
    }
    const command = [context.bwrapPath, ...bwrapArgs(layout, argv)];
    const [program, ...args] = request.wrap ? request.wrap(command) : command;
    const child = spawn(program as string, args, {
      cwd: worktree,
      env,
      detached: true,
      stdio: [request.stdin ?? 'ignore', 'pipe', 'pipe', 'pipe', seccomp ? 'pipe' : 'ignore'],
    });
    const filter = child.stdio[BWRAP_SECCOMP_FD];
    if (seccomp && filter instanceof Writable) {
      filter.on('error', () => {}); // a bwrap that failed to start closes it unread
      filter.end(seccomp);
    }
    return {
      child,
      inner: sandboxInitPid(child),
      bridged,
      release: async () => {
        await egress?.proxy.close();
      },
      networkNote(output) {
        if (!egress) {
          if (!NETWORK_TROUBLE.test(output)) return null;
          return "note: this sandbox has no network: AUTOCODER_SANDBOX_ALLOWED_HOSTS (or the project's list within it) admits no host (docs/sandbox.md)";
        }
        if (denied.size === 0) return null;
        const hosts = [...denied].map(
          ([target, reason]) =>
            `${target} (${reason === 'not-allowed' ? "not on the sandbox's allow-list" : 'resolves to a loopback or private address'})`,
        );
        return `note: the sandbox's network refused ${hosts.join(', ')}`;
      },
    };
  } catch (error) {
    await egress?.proxy.close();
    throw error;
  }
}
