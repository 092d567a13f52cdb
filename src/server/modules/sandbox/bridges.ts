import { socatBridgeArgv } from './egress/bridge.js';

/**
 * The processes that carry TCP across the sandbox's wall. A sandbox has a network namespace of its
 * own with only a loopback, so:
 * - egress: inside, a listener on 127.0.0.1:<port> forwards each connection to a Unix socket of
 *   the server's egress proxies (HTTP CONNECT, SOCKS5), which apply the allow-list;
 * - exposed ports: inside, a listener on a Unix socket forwards each connection to
 *   127.0.0.1:<port> (or [::1]:<port>) where a service listens, and the server's proxy connects
 *   to that socket.
 * Both are socat processes started by a short shell prelude before the command, detached so that
 * they are children of the sandbox's init, not of the command (a command that waits for all its
 * children would wait for them); they end with the sandbox's PID namespace.
 */

export interface InsideListener {
  /** 127.0.0.1:<port> inside the sandbox. */
  port: number;
  /** The Unix socket (a path visible inside) each connection is forwarded to. */
  socket: string;
}

export interface ExposedPort {
  /** The Unix socket the bridge listens on (a path visible inside and to the server). */
  socket: string;
  host: '127.0.0.1' | '::1';
  port: number;
}

export interface BridgePlan {
  socat: string;
  listeners: readonly InsideListener[];
  exposed: readonly ExposedPort[];
}

/** POSIX shell single-quoting. */
function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The port as /proc/net/tcp writes a listener on 127.0.0.1 (`0100007F:0C38 00000000:0000 0A`). */
function procNetListening(port: number): string {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  return `0100007F:${hex} 00000000:0000 0A`;
}

/** Connections one bridge carries at once: each is a socat process of the sandbox's own, under its process limit. */
const MAX_CHILDREN = 128;

/** How many 5 ms waits the prelude allows its listeners to come up (2 s) before it goes on anyway. */
const READY_TRIES = 400;

/**
 * The argv that runs `argv` after starting the bridges of `plan`; `argv` itself when there are none.
 * The prelude waits until every inside listener accepts, so the command's first request does not
 * meet a refused connection.
 */
export function withBridges(plan: BridgePlan, argv: readonly string[]): string[] {
  if (plan.listeners.length === 0 && plan.exposed.length === 0) return [...argv];
  const socat = quote(plan.socat);
  const lines: string[] = [];
  for (const { port, socket } of plan.listeners) {
    const listener = socatBridgeArgv(
      { port, socketPath: socket },
      { socat: plan.socat, maxChildren: MAX_CHILDREN },
    );
    lines.push(`(${listener.map(quote).join(' ')} </dev/null >/dev/null 2>&1 &)`);
  }
  for (const { socket, host, port } of plan.exposed) {
    const target = host === '::1' ? `TCP6:[::1]:${port},nodelay` : `TCP4:127.0.0.1:${port},nodelay`;
    lines.push(
      `(${socat} UNIX-LISTEN:${quote(socket)},fork,unlink-early,mode=600,max-children=${MAX_CHILDREN} ${target} </dev/null >/dev/null 2>&1 &)`,
    );
  }
  for (const { port } of plan.listeners) {
    const pattern = quote(procNetListening(port));
    lines.push(
      `n=0; while [ $n -lt ${READY_TRIES} ] && ! grep -q ${pattern} /proc/net/tcp; do n=$((n+1)); sleep 0.005; done`,
    );
  }
  lines.push('exec "$@"');
  return ['/bin/sh', '-c', lines.join('\n'), 'autocoder-sandbox', ...argv];
}
