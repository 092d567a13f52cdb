import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * One handler served where an engine reaches it: on Unix sockets (a sandbox's relays) and on
 * loopback ports (host mode), every server closed together.
 */
export function listeners(serve: () => Server) {
  const servers: Server[] = [];
  const started = async (listen: (server: Server, done: () => void) => void) => {
    const server = serve();
    servers.push(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      listen(server, resolve);
    });
    return server;
  };
  return {
    async listen(socketPath: string): Promise<void> {
      await started((server, done) => server.listen(socketPath, done));
    },
    async listenLoopback(): Promise<number> {
      const server = await started((server, done) => server.listen(0, '127.0.0.1', done));
      return (server.address() as AddressInfo).port;
    },
    async close(): Promise<void> {
      await Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.close(() => resolve());
              server.closeAllConnections();
            }),
        ),
      );
    },
  };
}
