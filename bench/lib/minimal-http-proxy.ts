// A minimal HTTP/1.1 reverse proxy in a process of its own, for the services part
// (bench/services-proxy.ts): the least a proxy that reads and rewrites HTTP costs here.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { baseEnv } from './common.js';
import { type Spawned, spawnNodeListening } from './processes.js';
import { type ServiceAddress, serviceEnv } from './service-address.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * One connection to the service per client connection; each request's head is read off the
 * socket, its Cookie, Authorization and Host lines dropped and the forwarding headers added, and
 * written on; each answer's head is read, AutoCoder-named Set-Cookie lines dropped, and written
 * back with its body in one write. No checks, no pooling, no node HTTP server or client, and only
 * what the bench sends: GETs, and answers framed by Content-Length. Between the raw TCP relay (no
 * HTTP at all) and AutoCoder's proxies (every check, any request): what reading HTTP itself costs.
 */
const PROXY = `
const net = require('node:net');
// The Host the service is sent: the port it listens on, on its side of any bridge.
const servicePort = Number(process.env.SERVICE_PORT);
const target = process.env.SERVICE_SOCKET
  ? { path: process.env.SERVICE_SOCKET }
  : { port: servicePort, host: '127.0.0.1' };
const HEAD_END = Buffer.from('\\r\\n\\r\\n');
const headLines = (data, end) => data.toString('latin1', 0, end).split('\\r\\n');
const nameOf = (line) => line.slice(0, line.indexOf(':')).toLowerCase();
const server = net.createServer((client) => {
  client.setNoDelay(true);
  const service = net.connect({ ...target, noDelay: true });
  let request = null;
  let answer = null;
  let bodyLeft = 0;
  service.on('data', (chunk) => {
    let data = answer ? Buffer.concat([answer, chunk]) : chunk;
    answer = null;
    const out = [];
    while (data.length > 0) {
      if (bodyLeft > 0) {
        const take = Math.min(bodyLeft, data.length);
        out.push(data.subarray(0, take));
        bodyLeft -= take;
        data = data.subarray(take);
        continue;
      }
      const end = data.indexOf(HEAD_END);
      if (end === -1) { answer = data; break; }
      const lines = headLines(data, end);
      let head = lines[0] + '\\r\\n';
      for (let i = 1; i < lines.length; i += 1) {
        const name = nameOf(lines[i]);
        const value = lines[i].slice(name.length + 1).trim();
        if (name === 'content-length') bodyLeft = Number(value);
        if (name === 'set-cookie' && value.startsWith('autocoder_')) continue;
        head += lines[i] + '\\r\\n';
      }
      out.push(Buffer.from(head + '\\r\\n', 'latin1'));
      data = data.subarray(end + 4);
    }
    if (out.length > 0) client.write(out.length === 1 ? out[0] : Buffer.concat(out));
  });
  client.on('data', (chunk) => {
    let data = request ? Buffer.concat([request, chunk]) : chunk;
    request = null;
    let out = '';
    for (let end = data.indexOf(HEAD_END); end !== -1; end = data.indexOf(HEAD_END)) {
      const lines = headLines(data, end);
      out += lines[0] + '\\r\\n';
      for (let i = 1; i < lines.length; i += 1) {
        const name = nameOf(lines[i]);
        if (name !== 'cookie' && name !== 'authorization' && name !== 'host') out += lines[i] + '\\r\\n';
      }
      out += 'host: 127.0.0.1:' + servicePort + '\\r\\nx-forwarded-for: ' + client.remoteAddress +
        '\\r\\nx-forwarded-host: 127.0.0.1\\r\\nx-forwarded-proto: http\\r\\n\\r\\n';
      data = data.subarray(end + 4);
    }
    if (data.length > 0) request = data;
    if (out) service.write(out, 'latin1');
  });
  client.on('error', () => service.destroy());
  client.on('close', () => service.destroy());
  service.on('error', () => client.destroy());
  service.on('close', () => client.destroy());
});
server.listen(0, '127.0.0.1', () => console.log('MINIMAL_PROXY ' + server.address().port));
`;

/** Starts the proxy to the service; its port, and the process (to stop, and to read its CPU). */
export function startMinimalProxy(service: ServiceAddress): Promise<{ port: number; spawned: Spawned }> {
  return spawnNodeListening(PROXY, 'MINIMAL_PROXY', root, { ...baseEnv(), ...serviceEnv(service) });
}
