import { connect, createServer } from 'node:net';

/** The loopback addresses a service may listen on: `localhost` is IPv6-only for some servers. */
export const LOOPBACK_TARGETS = ['127.0.0.1', '::1'] as const;
export type LoopbackTarget = (typeof LOOPBACK_TARGETS)[number];

/** A port nobody listens on now, as the kernel hands out for port 0. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('no port was assigned'))));
    });
  });
}

/** True when something accepts TCP connections on `host:port` (within 1 s). */
export function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * The host's loopback address on which `port` accepts connections, or null when neither does:
 * where services share the host's network, whether another program holds a port.
 */
export async function listeningOn(port: number): Promise<LoopbackTarget | null> {
  for (const host of LOOPBACK_TARGETS) if (await accepts(host, port)) return host;
  return null;
}
