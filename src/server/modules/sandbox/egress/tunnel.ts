import type { Socket } from 'node:net';

/**
 * Joins a sandbox's connection to its upstream, both ways. Half-closes pass through (both sockets
 * are half-open capable: a client that shuts its sending side still gets the answer); an error, a
 * close of either side, or `idleMs` without traffic either way ends both.
 */
export function splice(client: Socket, upstream: Socket, idleMs: number): void {
  const end = () => {
    client.destroy();
    upstream.destroy();
  };
  for (const socket of [client, upstream] as const) {
    socket.on('error', end);
    socket.on('close', end);
    // A socket's timer restarts on traffic in either direction (reads and writes both count).
    socket.setTimeout(idleMs, end);
  }
  client.pipe(upstream);
  upstream.pipe(client);
}
