import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createLogger } from '@/server/lib/logger.js';
import { freePort } from './ports.js';
import { ServiceProxy } from './proxy.js';
import type { ProxyTarget } from './proxy-target.js';
import { rawRequest } from './testing/fixture.js';
import { unixRelay } from './testing/unix-relay.js';

const listening = (server: Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : 0);
    }),
  );

/** Opens a WebSocket; rejects with the refusal's status and body. */
const refusal = (url: string) =>
  new Promise<string>((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('open', () => reject(new Error('opened')));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => {
        body += chunk;
      });
      res.on('end', () => resolve(`${res.statusCode} ${body}`));
    });
    ws.once('error', reject);
  });

describe('the proxy in front of a bridge with nothing behind it', () => {
  let front: Server;
  let frontPort: number;
  let dir: string;
  const closers: (() => Promise<void> | void)[] = [];

  beforeAll(async () => {
    dir = await mkdtemp('/tmp/ac-proxy-');
    closers.push(() => rm(dir, { recursive: true, force: true }));
    // A port nobody listens on, behind a bridge that accepts and then closes; and a bridge gone.
    const closed = await freePort();
    const bridge = await unixRelay(path.join(dir, 'refused.sock'), '127.0.0.1', closed);
    closers.push(() => bridge.close());
    const targets: Record<string, ProxyTarget> = {
      refused: {
        endpoint: { socketPath: bridge.socketPath },
        host: '127.0.0.1',
        port: closed,
        protocol: 'http',
      },
      gone: {
        endpoint: { socketPath: path.join(dir, 'gone.sock') },
        host: '127.0.0.1',
        port: closed,
        protocol: 'http',
      },
    };
    const serviceProxy = new ServiceProxy(createLogger('silent'));
    closers.push(() => serviceProxy.close());
    const options = (url: string) => ({
      target: targets[url.split('/')[1] ?? ''] as ProxyTarget,
      path: '/',
      forwardedHost: 'test',
      proto: 'http' as const,
      clientIp: '127.0.0.1',
      stripCookies: [],
    });
    front = createServer((req, res) => serviceProxy.web(req, res, options(req.url ?? '')));
    front.on('upgrade', (req, socket, head) =>
      serviceProxy.upgrade(req, socket, head, options(req.url ?? '')),
    );
    frontPort = await listening(front);
    closers.push(() => {
      front.closeAllConnections();
      front.close();
    });
  });
  afterAll(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  it('answers 503 connection_refused to GET, POST and a WebSocket, as for a refused TCP port', async () => {
    for (const name of ['refused', 'gone']) {
      const get = await rawRequest(frontPort, { path: `/${name}` });
      expect(get.status, `${name}: ${get.body}`).toBe(503);
      expect(JSON.parse(get.body)).toMatchObject({ error: 'connection_refused' });
      const post = await rawRequest(frontPort, { method: 'POST', path: `/${name}`, body: 'data' });
      expect(post.status, `${name}: ${post.body}`).toBe(503);
      expect(JSON.parse(post.body)).toMatchObject({ error: 'connection_refused' });
      expect(await refusal(`ws://127.0.0.1:${frontPort}/${name}`)).toMatch(/^503 .*connection_refused/);
    }
  });

  it('answers 502 bad_gateway when something behind the bridge answers what is not HTTP', async () => {
    const garbage = createNetServer((socket) => socket.end('SSH-2.0-OpenSSH\r\n\r\n'));
    await new Promise<void>((resolve) => garbage.listen(0, '127.0.0.1', resolve));
    const address = garbage.address();
    const inside = typeof address === 'object' && address ? address.port : 0;
    const bridge = await unixRelay(path.join(dir, 'garbage.sock'), '127.0.0.1', inside);
    const serviceProxy = new ServiceProxy(createLogger('silent'));
    const server = createServer((req, res) =>
      serviceProxy.web(req, res, {
        target: {
          endpoint: { socketPath: bridge.socketPath },
          host: '127.0.0.1',
          port: inside,
          protocol: 'http',
        },
        path: '/',
        forwardedHost: 'test',
        proto: 'http',
        clientIp: '127.0.0.1',
        stripCookies: [],
      }),
    );
    try {
      const answer = await rawRequest(await listening(server), { path: '/' });
      expect(answer.status).toBe(502);
    } finally {
      server.closeAllConnections();
      server.close();
      serviceProxy.close();
      await bridge.close();
      garbage.close();
    }
  });
});
