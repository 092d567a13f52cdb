import { createServer, connect as netConnect, type Socket } from 'node:net';

export interface UnixRelay {
  socketPath: string;
  /** Connections accepted so far. */
  readonly connections: number;
  close(): Promise<void>;
}

/**
 * A bridge like the one the sandbox starts for an exposed port (socat `UNIX-LISTEN:…,fork
 * TCP:host:port`): every connection to the Unix socket is relayed to `host:port`, and is closed
 * unanswered when nothing listens there — it was accepted all the same.
 */
export async function unixRelay(socketPath: string, host: string, port: number): Promise<UnixRelay> {
  const open = new Set<Socket>();
  let connections = 0;
  const server = createServer((client) => {
    connections += 1;
    client.pause();
    const inside = netConnect({ host, port });
    for (const socket of [client, inside]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
    }
    inside.once('connect', () => {
      client.pipe(inside);
      inside.pipe(client);
      client.resume();
    });
    inside.on('error', () => client.destroy());
    inside.on('close', () => client.destroy());
    client.on('error', () => inside.destroy());
    client.on('close', () => inside.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, resolve);
  });
  return {
    socketPath,
    get connections() {
      return connections;
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
