// A raw TCP relay in a process of its own, for the services part (bench/services-proxy.ts).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { baseEnv } from './common.js';
import { type Spawned, spawnGroup } from './processes.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Bytes copied both ways between each client and the service, no HTTP parsed or written, no check.
 * No proxy written in node can cost less per request than this on the same machine, so its share
 * of direct throughput is the ceiling for AutoCoder's proxies there.
 */
const RELAY = `
const net = require('node:net');
const server = net.createServer((client) => {
  const service = net.connect(Number(process.env.SERVICE_PORT), '127.0.0.1');
  client.setNoDelay(true);
  service.setNoDelay(true);
  client.pipe(service).pipe(client);
  client.on('error', () => service.destroy());
  service.on('error', () => client.destroy());
});
server.listen(0, '127.0.0.1', () => console.log('RELAY ' + server.address().port));
`;

/** Starts a relay to `servicePort`; its port, and the process (to stop, and to read its CPU). */
export async function startRelay(servicePort: number): Promise<{ port: number; spawned: Spawned }> {
  const spawned = spawnGroup(process.execPath, ['-e', RELAY], root, {
    ...baseEnv(),
    SERVICE_PORT: String(servicePort),
  });
  const deadline = Date.now() + 10_000;
  for (;;) {
    const port = /RELAY (\d+)/.exec(spawned.output())?.[1];
    if (port) return { port: Number(port), spawned };
    if (Date.now() > deadline) {
      await spawned.stop();
      throw new Error(`the TCP relay did not start: ${spawned.output().slice(-200)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
