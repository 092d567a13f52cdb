import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { ResolvedAddress } from './egress-dial.js';
import {
  createEgressProxy,
  type EgressLimits,
  type EgressProxy,
  egressAddressPolicy,
} from './egress-proxy.js';
import { allowListPredicate, parseAllowList } from './host-allow-list.js';

/** Test-only: the names the proxies resolve, and what to. */
export const TEST_DNS: Record<string, string[]> = {
  'allowed.test': ['127.0.0.1'],
  'refused.test': ['127.0.0.1'],
  'loopback.test': ['127.0.0.1'],
  'private.test': ['10.1.2.3'],
  'metadata.test': ['169.254.169.254'],
  'rebinding.test': ['93.184.216.34', '127.0.0.1'],
  'unlisted.test': ['127.0.0.1'],
};

/**
 * Every name but `unlisted.test` is on the list, and `127.0.0.1` too. Only `allowed.test` and
 * `refused.test` may reach a private address, as hosts in AUTOCODER_ALLOWED_HOSTS may.
 */
export const TEST_ALLOW_LIST =
  'allowed.test refused.test loopback.test private.test metadata.test rebinding.test 127.0.0.1';

export interface Denial {
  host: string;
  port: number;
  reason: string;
}

/** An egress proxy over the test names, in a fresh 0700 directory; `denials` collects refusals. */
export async function startTestProxy(limits: Partial<EgressLimits> = {}) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'egress-'));
  const denials: Denial[] = [];
  const lookups: string[] = [];
  const proxy: EgressProxy = await createEgressProxy({
    socketDir: dir,
    allow: allowListPredicate(parseAllowList(TEST_ALLOW_LIST).patterns),
    policy: egressAddressPolicy(['allowed.test', 'refused.test']),
    lookup: async (host): Promise<ResolvedAddress[]> => {
      lookups.push(host);
      const found = TEST_DNS[host];
      if (!found) throw Object.assign(new Error(`${host}: not found`), { code: 'ENOTFOUND' });
      return found.map((address) => ({ address, family: net.isIP(address) }));
    },
    logger: { info: () => {} },
    onDenied: (host, port, reason) => denials.push({ host, port, reason }),
    limits,
  });
  return {
    proxy,
    dir,
    denials,
    lookups,
    async stop() {
      await proxy.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A TCP server on 127.0.0.1 that sends back what it gets; `sockets` are its open connections. */
export async function startEchoServer() {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.pipe(socket);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, sockets, port: (server.address() as net.AddressInfo).port };
}

/** An HTTP server on 127.0.0.1 answering with the request it got, as JSON. */
export async function startOriginServer() {
  const server = http.createServer((req, res) => {
    res.setHeader('Set-Cookie', ['a=1', 'b=2']);
    res.end(JSON.stringify({ url: req.url, method: req.method, rawHeaders: req.rawHeaders }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as net.AddressInfo).port };
}

/** Ports nothing listens on (taken together, then let go). */
export async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => net.createServer().listen(0, '127.0.0.1'));
  await Promise.all(servers.map((server) => once(server, 'listening')));
  const ports = servers.map((server) => (server.address() as net.AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

export const closedPort = async () => (await freePorts(1))[0] ?? 0;

/** Connects to a Unix socket, collecting what it receives in `received()`. */
export async function connectUnix(socketPath: string) {
  const socket = net.connect(socketPath);
  let data = Buffer.alloc(0);
  const waiters: Array<() => void> = [];
  socket.on('data', (chunk: Buffer) => {
    data = Buffer.concat([data, chunk]);
    for (const wake of waiters.splice(0)) wake();
  });
  socket.on('error', () => {});
  const closed = once(socket, 'close');
  await once(socket, 'connect');
  return {
    socket,
    closed,
    received: () => data,
    /** Resolves once what was received satisfies `done` (or the socket closed). */
    async until(done: (received: Buffer) => boolean): Promise<Buffer> {
      while (!done(data) && !socket.destroyed && !socket.readableEnded) {
        await Promise.race([new Promise<void>((resolve) => waiters.push(resolve)), closed]);
      }
      return data;
    },
  };
}

/** Sends a CONNECT head and reads the answer: status, the head, and the body of a refusal. */
export async function httpConnect(socketPath: string, authority: string) {
  const client = await connectUnix(socketPath);
  client.socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
  const head = (await client.until((d) => d.includes('\r\n\r\n'))).toString('latin1');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
  if (status !== 200) await client.closed;
  const body = status === 200 ? '' : client.received().toString('utf8').split('\r\n\r\n')[1];
  return { ...client, status, head, body };
}

/** A SOCKS5 greeting (no auth) and one request; `reply` is the server's reply code. */
export async function socksRequest(socketPath: string, request: Buffer) {
  const client = await connectUnix(socketPath);
  client.socket.write(Buffer.from([5, 1, 0]));
  await client.until((d) => d.length >= 2);
  client.socket.write(request);
  const data = await client.until((d) => d.length >= 12);
  return { ...client, greeting: [...data.subarray(0, 2)], reply: data[3] };
}

export function socksDomain(command: number, host: string, port: number): Buffer {
  const name = Buffer.from(host, 'latin1');
  return Buffer.concat([Buffer.from([5, command, 0, 3, name.length]), name, portBytes(port)]);
}

export function socksIp(command: number, address: string, port: number): Buffer {
  const v4 = net.isIPv4(address);
  const bytes = v4 ? address.split('.').map(Number) : ipv6Bytes(address);
  return Buffer.concat([Buffer.from([5, command, 0, v4 ? 1 : 4, ...bytes]), portBytes(port)]);
}

function portBytes(port: number): Buffer {
  const buffer = Buffer.alloc(2);
  buffer.writeUInt16BE(port);
  return buffer;
}

function ipv6Bytes(address: string): number[] {
  const [head = '', tail = ''] = address.split('::');
  const words = (part: string) => (part ? part.split(':').map((w) => Number.parseInt(w, 16)) : []);
  const left = words(head);
  const right = words(tail);
  const all = [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  return all.flatMap((w) => [w >> 8, w & 0xff]);
}
