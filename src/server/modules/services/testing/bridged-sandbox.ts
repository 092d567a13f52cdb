import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { createSandbox, type Sandbox, type SpawnOptions } from '../../sandbox/sandbox.js';
import { freePort } from '../ports.js';
import { type UnixRelay, unixRelay } from './unix-relay.js';

export interface BridgedSandbox extends Sandbox {
  /** What each spawn was asked for, in order. */
  readonly spawned: SpawnOptions[];
  /** The bridge of the last process that exposed `port`, for one loopback address. */
  bridge(port: number, host: '127.0.0.1' | '::1'): UnixRelay | undefined;
}

/**
 * A sandbox whose processes the server reaches only over Unix sockets, as in a network of their
 * own: a real process (run in host mode) that exposes a port is given another free port in its
 * `PORT` (the one it was given stays unused on the host's loopback, so a proxy that went there
 * would find nothing), and each exposed port gets a bridge per loopback address to that port.
 * `searchPath`: the PATH its processes get.
 */
export async function bridgedSandbox(searchPath: string): Promise<BridgedSandbox> {
  // Short: a Unix socket's path has at most 107 bytes.
  const dir = await mkdtemp('/tmp/ac-bridge-');
  const host = createSandbox({
    mode: 'host',
    bwrapPath: null,
    path: searchPath,
    hidden: [],
  });
  const spawned: SpawnOptions[] = [];
  const bridges = new Map<string, UnixRelay>();
  const all: UnixRelay[] = [];
  let count = 0;
  return {
    mode: host.mode,
    summary: host.summary,
    spawned,
    bridge: (port, address) => bridges.get(`${address} ${port}`),
    async spawn(options) {
      spawned.push(options);
      const n = ++count;
      const own = new Map<string, UnixRelay>();
      const env = { ...options.env };
      for (const port of options.expose ?? []) {
        const inside = await freePort();
        if (env.PORT === String(port)) env.PORT = String(inside);
        for (const address of ['127.0.0.1', '::1'] as const) {
          const file = path.join(dir, `${n}-${port}-${address === '::1' ? 6 : 4}.sock`);
          const relay = await unixRelay(file, address, inside);
          own.set(`${address} ${port}`, relay);
          all.push(relay);
        }
      }
      for (const [key, relay] of own) bridges.set(key, relay);
      const proc = await host.spawn({ ...options, env });
      void proc.exited.then(() => Promise.all([...own.values()].map((relay) => relay.close())));
      return {
        child: proc.child,
        exited: proc.exited,
        stop: (grace) => proc.stop(grace),
        endpoint(port, address) {
          const relay = own.get(`${address} ${port}`);
          if (!relay) throw new Error(`port ${port} was not exposed when the process started`);
          return { socketPath: relay.socketPath };
        },
      };
    },
    run: (options) => host.run(options),
    async close() {
      await host.close();
      await Promise.all(all.map((relay) => relay.close()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
