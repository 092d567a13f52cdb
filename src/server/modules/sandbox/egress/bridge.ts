import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the sandboxed process finds the proxies: its own loopback (it has no other network). */
export const INSIDE_PROXY_PORTS = { http: 3128, socks: 1080 } as const;

export interface BridgeListener {
  /** Port on the sandbox's 127.0.0.1. */
  port: number;
  /** The proxy's Unix socket, as mounted inside the sandbox. */
  socketPath: string;
}

/**
 * socat's argv for one listener inside the sandbox (socat 1.7.4): a child per connection
 * (`fork`), at most `maxChildren` at once (each is a process of the sandbox's own), listening on
 * the sandbox's loopback only.
 */
export function socatBridgeArgv(
  listener: BridgeListener,
  options: { socat?: string; maxChildren?: number } = {},
) {
  // socat reads `,` `:` `!!` and quotes inside an address as syntax, and the path is ours to choose.
  if (!/^\/[\w./-]+$/.test(listener.socketPath)) {
    throw new Error(`${listener.socketPath}: a bridge's socket path must be absolute, in [A-Za-z0-9_./-]`);
  }
  return [
    options.socat ?? 'socat',
    `TCP4-LISTEN:${listener.port},bind=127.0.0.1,fork,reuseaddr,max-children=${options.maxChildren ?? 128}`,
    `UNIX-CONNECT:${listener.socketPath}`,
  ];
}

/**
 * argv of the Node bridge (`bridge-process.mjs`, for hosts without socat): every listener in one
 * process; given a command, it starts it once every listener is up (so the command's first request
 * cannot come before the bridge), passes signals on and exits with its status.
 */
export function nodeBridgeArgv(
  node: string,
  listeners: readonly BridgeListener[],
  command: readonly string[] = [],
): string[] {
  const specs = listeners.flatMap((l) => ['listen-tcp', `127.0.0.1:${l.port}`, `unix:${l.socketPath}`]);
  return [node, bridgeProcessFile(), ...specs, ...(command.length > 0 ? ['--', ...command] : [])];
}

/** The Node bridge script, beside this file in source and, once the build copies it, in dist/server. */
export function bridgeProcessFile(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const file = path.join(here, 'bridge-process.mjs');
  if (!existsSync(file)) throw new Error(`the network bridge was not found at ${file}`);
  return file;
}

/**
 * The proxy settings of a sandboxed process, for the clients a check or an agent commonly runs:
 * - curl, git over https and other libcurl users: lower-case `http_proxy` (libcurl ignores
 *   `HTTP_PROXY`), `https_proxy`, `all_proxy`, `no_proxy`;
 * - Python (pip, requests, urllib), Go, Rust, Deno, Bun, Ruby: the same names, either case;
 * - npm, pnpm and Yarn 1: `npm_config_proxy` / `npm_config_https_proxy` / `npm_config_noproxy`;
 *   Yarn 2+: `YARN_HTTP_PROXY` / `YARN_HTTPS_PROXY`;
 * - Node's own fetch and http follow the variables from Node 22.21/24 with NODE_USE_ENV_PROXY=1.
 * `ALL_PROXY` is `socks5h://` so that names are resolved by the proxy (the sandbox has no DNS).
 * Not covered: the JVM (its own -D properties), ssh (`git@…` remotes) and `git://`.
 */
export function proxyEnv(
  ports: { http: number; socks: number } = INSIDE_PROXY_PORTS,
): Record<string, string> {
  const http = `http://127.0.0.1:${ports.http}`;
  const socks = `socks5h://127.0.0.1:${ports.socks}`;
  const noProxy = 'localhost,127.0.0.1,::1';
  return {
    HTTP_PROXY: http,
    HTTPS_PROXY: http,
    http_proxy: http,
    https_proxy: http,
    ALL_PROXY: socks,
    all_proxy: socks,
    NO_PROXY: noProxy,
    no_proxy: noProxy,
    npm_config_proxy: http,
    npm_config_https_proxy: http,
    npm_config_noproxy: noProxy,
    YARN_HTTP_PROXY: http,
    YARN_HTTPS_PROXY: http,
    NODE_USE_ENV_PROXY: '1',
  };
}
