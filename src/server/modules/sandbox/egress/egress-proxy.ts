import { chmod, chown } from 'node:fs/promises';
import type { Server, Socket } from 'node:net';
import path from 'node:path';
import type { Logger } from '../../../lib/logger.js';
import { createNetworkPolicy } from '../../../lib/network-policy.js';
import {
  type AddressPolicy,
  type DenyReason,
  type Dialer,
  describeFailure,
  dial,
  type EgressLookup,
  systemLookup,
} from './egress-dial.js';
import { createHttpProxyServer } from './http-proxy.js';
import { createSocks5Server } from './socks5-proxy.js';

/**
 * The address policy of sandbox egress: public addresses only, but for the hosts the operator lists
 * in AUTOCODER_ALLOWED_HOSTS (an internal registry mirror). Unlike the server's own policy, a
 * server on loopback gets no leniency: there the sandbox would reach the operator's own machine.
 */
export function egressAddressPolicy(allowedHosts: readonly string[]): AddressPolicy {
  return createNetworkPolicy({ serverOnLoopback: false, allowedHosts });
}

export interface EgressLimits {
  /** Largest HTTP request head, in bytes (431 past it). */
  maxHeadBytes: number;
  /** Time to receive an HTTP request head or a SOCKS handshake, in ms. */
  headTimeoutMs: number;
  /** Connections from the sandbox open at once, both proxies together; more are closed at once. */
  maxConnections: number;
  /** A tunnel with no traffic either way for this long is cut. */
  idleTimeoutMs: number;
  /** Time for one upstream connection attempt, in ms. */
  connectTimeoutMs: number;
}

export const DEFAULT_EGRESS_LIMITS: EgressLimits = {
  maxHeadBytes: 16 * 1024,
  headTimeoutMs: 10_000,
  maxConnections: 256,
  idleTimeoutMs: 10 * 60_000,
  connectTimeoutMs: 10_000,
};

export interface EgressProxyOptions {
  /**
   * An existing directory for the two sockets (`http.sock`, `socks.sock`). Make it 0700: a socket
   * exists for a moment before its mode is set, and the directory is what keeps other users out.
   */
  socketDir: string;
  /** The allow-list: `allowListPredicate(narrowAllowList(operator, project))`. Hosts come canonical. */
  allow: (host: string, port: number) => boolean;
  /** Which addresses a host may reach (see {@link AddressPolicy}). */
  policy: AddressPolicy;
  lookup?: EgressLookup | undefined;
  logger: Pick<Logger, 'info'>;
  /** Told of every refusal (not on the list, or resolves to a private address). */
  onDenied?: ((host: string, port: number, reason: DenyReason) => void) | undefined;
  limits?: Partial<EgressLimits> | undefined;
  /** Mode of both socket files (default 0600: only their owner may connect). */
  socketMode?: number | undefined;
  /** Owner of both socket files: the sandbox's uid and gid, when the server is root. */
  socketOwner?: { uid: number; gid: number } | undefined;
}

export interface EgressStats {
  /** Connections from the sandbox open now. */
  active: number;
  /** Connections accepted so far. */
  accepted: number;
  /** Connections closed at once because `maxConnections` were open. */
  overLimit: number;
  /** Targets refused by the allow-list or the address policy. */
  denied: number;
  /** Allowed targets that could not be resolved or reached. */
  failed: number;
}

export interface EgressProxy {
  httpSocketPath: string;
  socksSocketPath: string;
  stats(): EgressStats;
  /** Stops both proxies and ends every connection and tunnel they hold; removes the sockets. */
  close(): Promise<void>;
}

/**
 * The egress proxies of one sandbox: HTTP (CONNECT and plain-http forwarding) and SOCKS5, each on
 * a Unix socket that the sandbox gets mounted. One instance per sandbox, so a refusal is logged
 * against that sandbox and `close()` cuts exactly its connections.
 */
export async function createEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  const limits = { ...DEFAULT_EGRESS_LIMITS, ...options.limits };
  const clients = new Set<Socket>();
  const upstreams = new Set<Socket>();
  const counts = { accepted: 0, overLimit: 0, denied: 0, failed: 0 };
  let closed = false;
  /** Keeps `socket` in `set` while it is open; once the proxy is closed, ends it at once. */
  const holdUntilClosed = (set: Set<Socket>, socket: Socket) => {
    if (closed) return void socket.destroy();
    set.add(socket);
    socket.once('close', () => set.delete(socket));
  };

  const dialer: Dialer = async (host, port) => {
    const result = await dial(host, port, {
      allow: options.allow,
      policy: options.policy,
      lookup: options.lookup ?? systemLookup,
      connectTimeoutMs: limits.connectTimeoutMs,
      track: (socket) => holdUntilClosed(upstreams, socket),
    });
    if (result.ok) return result;
    const reason = describeFailure(result, port);
    if (result.failure === 'not-allowed' || result.failure === 'private-address') {
      counts.denied += 1;
      options.logger.info('sandbox network request refused', { host: result.host, port, reason });
      options.onDenied?.(result.host, port, result.failure);
    } else {
      counts.failed += 1;
      options.logger.info('sandbox network request failed', { host: result.host, port, reason });
    }
    return result;
  };

  const admit = (socket: Socket) => {
    if (clients.size >= limits.maxConnections) {
      counts.overLimit += 1;
      socket.destroy();
      return;
    }
    counts.accepted += 1;
    holdUntilClosed(clients, socket);
  };

  const http = createHttpProxyServer(dialer, limits);
  const socks = createSocks5Server(dialer, limits);
  const servers = [http, socks];
  for (const server of servers) server.prependListener('connection', admit);
  const httpSocketPath = path.join(options.socketDir, 'http.sock');
  const socksSocketPath = path.join(options.socketDir, 'socks.sock');
  try {
    for (const [server, socketPath] of [
      [http, httpSocketPath],
      [socks, socksSocketPath],
    ] as const) {
      await listen(server, socketPath);
      await chmod(socketPath, options.socketMode ?? 0o600);
      if (options.socketOwner) await chown(socketPath, options.socketOwner.uid, options.socketOwner.gid);
    }
  } catch (error) {
    await Promise.all(servers.map(stop));
    throw error;
  }

  return {
    httpSocketPath,
    socksSocketPath,
    stats: () => ({ active: clients.size, ...counts }),
    async close() {
      closed = true;
      for (const socket of [...clients, ...upstreams]) socket.destroy();
      await Promise.all(servers.map(stop));
    },
  };
}

function listen(server: Server, socketPath: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Closes a server (Node removes its socket file), listening or not. */
function stop(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
  });
}
