import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Service, ServicePreview } from '@/contracts/services.js';
import { type BridgedSandbox, bridgedSandbox } from './testing/bridged-sandbox.js';
import {
  echoService,
  rawRequest,
  type ServedApp,
  serveTestApp,
  userWithWorkspace,
  waitFor,
  writeService,
} from './testing/fixture.js';

// Services in a network of their own: the server reaches them only through the Unix sockets their
// sandbox bridges in (`SandboxedProcess.endpoint`), never on the host's loopback.

/** What the echo service says it received. */
interface Echo {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

const listening = (server: Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : 0);
    }),
  );

/** Opens a WebSocket and resolves with its first message, or rejects with the refusal's status. */
function openSocket(url: string, headers: Record<string, string>): Promise<{ ws: WebSocket; first: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('message', (data) => resolve({ ws, first: String(data) }));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => {
        body += chunk;
      });
      res.on('end', () => reject(new Error(`refused ${res.statusCode} ${body}`)));
    });
    ws.once('error', reject);
  });
}

const nextMessage = (ws: WebSocket) =>
  new Promise<string>((resolve) => ws.once('message', (data) => resolve(String(data))));

describe('a service reached over a Unix socket bridged into its sandbox', () => {
  let sandbox: BridgedSandbox;
  let served: ServedApp;
  let user: Awaited<ReturnType<typeof userWithWorkspace>>;
  let proxy: string;
  let port: number;

  beforeAll(async () => {
    sandbox = await bridgedSandbox(process.env.PATH ?? '/usr/bin:/bin');
    served = await serveTestApp({ runtime: { sandbox } });
    user = await userWithWorkspace(served);
    proxy = `${user.api}/web/http`;
    await writeService(
      user.repoPath,
      'web',
      echoService('//---\n// http: auto\n//---', { listenWhen: 'listen-now' }),
    );
  }, 60_000);
  afterAll(async () => {
    await served?.close();
    await sandbox?.close();
  });

  const web = async () => (await user.client.get<Service>(`${user.api}/web`)).body;

  it('is running once it answers HTTP through the bridge, not when the bridge accepts', async () => {
    expect((await user.client.post(`${user.api}/web/start`)).status).toBe(202);
    const starting = await waitFor(web, (s) => typeof s.http === 'number');
    port = Number(starting.http);
    expect(sandbox.spawned.at(-1)?.expose).toEqual([port]);
    // The bridge accepts every try, and closes it: nothing listens behind it yet.
    const tried = await waitFor(
      async () => ({
        tries: sandbox.bridge(port, '127.0.0.1')?.connections ?? 0,
        status: (await web()).status,
      }),
      (seen) => seen.tries >= 3 || seen.status !== 'starting',
    );
    expect(tried.status).toBe('starting');
    await writeFile(path.join(user.repoPath, 'listen-now'), '');
    expect(await waitFor(web, (s) => s.status !== 'starting')).toMatchObject({
      status: 'running',
      http: port,
    });
  });

  it('carries GET and HEAD (the proxy’s own client) and a POST with a streamed body through the bridge', async () => {
    const bridge = sandbox.bridge(port, '127.0.0.1');
    const before = bridge?.connections ?? 0;
    const got = await rawRequest(served.port, {
      path: `${proxy}/items?x=1`,
      headers: { cookie: user.cookie },
    });
    expect(got.status).toBe(200);
    const echo = JSON.parse(got.body) as Echo;
    expect(echo).toMatchObject({ method: 'GET', url: '/items?x=1' });
    // The address and port the service listens on, on its side of the bridge.
    expect(echo.headers.host).toBe(`127.0.0.1:${port}`);

    const head = await rawRequest(served.port, {
      method: 'HEAD',
      path: `${proxy}/items`,
      headers: { cookie: user.cookie },
    });
    expect(head).toMatchObject({ status: 200, body: '' });

    const posted = await rawRequest(served.port, {
      method: 'POST',
      path: `${proxy}/items`,
      headers: { cookie: user.cookie, 'content-type': 'text/plain', 'transfer-encoding': 'chunked' },
      body: ['one, ', 'two, ', 'three'],
    });
    expect(posted.status).toBe(200);
    expect(JSON.parse(posted.body)).toMatchObject({ method: 'POST', url: '/items', body: 'one, two, three' });
    expect(bridge?.connections ?? 0).toBeGreaterThan(before);
  });

  it('carries a WebSocket through the bridge, by the path proxy and by the preview', async () => {
    const bridge = sandbox.bridge(port, '127.0.0.1');
    const before = bridge?.connections ?? 0;
    const byPath = await openSocket(`ws://127.0.0.1:${served.port}${proxy}/live`, { cookie: user.cookie });
    expect(byPath.first).toBe('hello /live cookie=');
    byPath.ws.send('ping');
    expect(await nextMessage(byPath.ws)).toBe('echo:ping');
    byPath.ws.close();

    const link = await user.client.post<ServicePreview>(`${user.api}/web/preview`, undefined);
    const url = new URL(link.body.url);
    const host = `${url.hostname}:${served.port}`;
    const redeemed = await rawRequest(served.port, {
      path: `${url.pathname}${url.search}`,
      headers: { host },
    });
    const cookie = (redeemed.headers['set-cookie'] ?? [])[0]?.split(';')[0] ?? '';
    const page = await rawRequest(served.port, { path: '/page', headers: { host, cookie } });
    expect(page.status).toBe(200);
    expect(JSON.parse(page.body)).toMatchObject({ url: '/page' });
    const byPreview = await openSocket(`ws://127.0.0.1:${served.port}/hmr`, { host, cookie });
    expect(byPreview.first).toBe('hello /hmr cookie=');
    byPreview.ws.close();
    expect(bridge?.connections ?? 0).toBeGreaterThan(before + 1);
  });

  it('starts on a fixed port that a program on the host holds: its network is its own', async () => {
    const holder = createServer((_req, res) => res.end('the host program'));
    const held = await listening(holder);
    try {
      await writeService(user.repoPath, 'fixed', echoService(`//---\n// http: ${held}\n//---`));
      await user.client.post(`${user.api}/fixed/start`);
      const fixed = await waitFor(
        async () => (await user.client.get<Service>(`${user.api}/fixed`)).body,
        (s) => s.status !== 'starting',
      );
      expect(fixed).toMatchObject({ status: 'running', http: held });
      const got = await rawRequest(served.port, {
        path: `${user.api}/fixed/http/`,
        headers: { cookie: user.cookie },
      });
      expect(JSON.parse(got.body)).toMatchObject({ method: 'GET', url: '/' });
    } finally {
      holder.close();
    }
  });
});

describe('a service sharing the host network', () => {
  it('does not start on a fixed port another program holds', async () => {
    const served = await serveTestApp({ sandboxMode: 'host' });
    const holder = createServer((_req, res) => res.end('the host program'));
    try {
      const held = await listening(holder);
      const user = await userWithWorkspace(served);
      await writeService(user.repoPath, 'fixed', echoService(`//---\n// http: ${held}\n//---`));
      await user.client.post(`${user.api}/fixed/start`);
      const fixed = await waitFor(
        async () => (await user.client.get<Service>(`${user.api}/fixed`)).body,
        (s) => s.status === 'error' && s.pid === undefined,
      );
      expect(fixed.error).toBe(`port ${held} is already in use by another process`);
    } finally {
      holder.close();
      await served.close();
    }
  });
});
