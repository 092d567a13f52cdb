// Where the services part reaches the workspace service itself, as AutoCoder's proxy does.
import { readdir, stat } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';

/**
 * The port the service listens on, and, in bubblewrap, its sandbox's bridge to it (otherwise the
 * port is reached on the host's loopback).
 */
export interface ServiceAddress {
  port: number;
  socketPath?: string;
}

/**
 * In bubblewrap the service has a network of its own: its port is reached only through the Unix
 * socket its sandbox bridges in: `p<port>-4.sock` in the sandbox's run directory, an
 * `autocoder-sandbox-…` directory under the server's TMPDIR (src/server/modules/sandbox/
 * bwrap-launch.ts). Without one (host mode), its port on 127.0.0.1.
 */
export async function serviceAddress(serverTmp: string, port: number): Promise<ServiceAddress> {
  for (const dir of await readdir(serverTmp)) {
    const socketPath = path.join(serverTmp, dir, `p${port}-4.sock`);
    if ((await stat(socketPath).catch(() => null))?.isSocket()) return { port, socketPath };
  }
  return { port };
}

/** The variables the reference relays (tcp-relay.ts, minimal-http-proxy.ts) read the service from. */
export const serviceEnv = (service: ServiceAddress): Record<string, string> => ({
  SERVICE_PORT: String(service.port),
  ...(service.socketPath ? { SERVICE_SOCKET: service.socketPath } : {}),
});

/** A GET straight to the service, its answer read as `httpRequest` (lib/http.ts) reads one; its status. */
export function getService(agent: http.Agent, service: ServiceAddress, target: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const where = service.socketPath
      ? { socketPath: service.socketPath }
      : { host: '127.0.0.1', port: service.port };
    const req = http.request({ ...where, method: 'GET', path: target, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        Buffer.concat(chunks);
        resolve(res.statusCode ?? 0);
      });
    });
    req.on('error', reject);
    req.setTimeout(30_000, () =>
      req.destroy(Object.assign(new Error(`GET ${target} timed out`), { code: 'ETIMEDOUT' })),
    );
    req.end();
  });
}
