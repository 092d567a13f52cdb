// A raw TCP relay in a process of its own, for the services part (bench/services-proxy.ts).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { baseEnv } from './common.js';
import { type Spawned, spawnNodeListening } from './processes.js';
import { type ServiceAddress, serviceEnv } from './service-address.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Bytes copied both ways between each client and the service, no HTTP parsed or written, no check.
 * No proxy written in node can cost less per request than this on the same machine, so its share
 * of direct throughput is the ceiling for AutoCoder's proxies there.
 */
const RELAY = `
const net = require('node:net');
const target = process.env.SERVICE_SOCKET
  ? { path: process.env.SERVICE_SOCKET }
  : { port: Number(process.env.SERVICE_PORT), host: '127.0.0.1' };
const server = net.createServer((client) => {
  const service = net.connect(target);
  client.setNoDelay(true);
  service.setNoDelay(true);
  client.pipe(service).pipe(client);
  client.on('error', () => service.destroy());
  service.on('error', () => client.destroy());
});
server.listen(0, '127.0.0.1', () => console.log('RELAY ' + server.address().port));
`;

/** Starts a relay to the service; its port, and the process (to stop, and to read its CPU). */
export function startRelay(service: ServiceAddress): Promise<{ port: number; spawned: Spawned }> {
  return spawnNodeListening(RELAY, 'RELAY', root, { ...baseEnv(), ...serviceEnv(service) });
}
