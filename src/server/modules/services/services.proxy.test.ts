import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Service } from '@/contracts/services.js';
import { signedInClient, TestClient } from '@/server/testing/test-app.js';
import {
  echoService,
  rawRequest,
  type ServedApp,
  serveTestApp,
  userWithWorkspace,
  waitFor,
  writeService,
} from './testing/fixture.js';

let served: ServedApp;
let user: Awaited<ReturnType<typeof userWithWorkspace>>;
let proxy: string;

/** What the echo service says it received. */
interface Echo {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

beforeAll(async () => {
  served = await serveTestApp();
  user = await userWithWorkspace(served);
  await writeService(user.repoPath, 'web', echoService('//---\n// http: auto\n//---'));
  await user.client.post(`${user.api}/web/start`);
  await waitFor(
    async () => (await user.client.get<Service>(`${user.api}/web`)).body,
    (s) => s.status === 'running',
  );
  proxy = `${user.api}/web/http`;
}, 60_000);
afterAll(() => served?.close());

/** Opens a WebSocket and resolves with its first message (or rejects with the refusal's status). */
function openSocket(
  url: string,
  headers: Record<string, string>,
): Promise<{ ws: WebSocket; first: string; setCookie: string[] }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    let setCookie: string[] = [];
    ws.once('upgrade', (answer) => {
      setCookie = answer.headers['set-cookie'] ?? [];
    });
    ws.once('message', (data) => resolve({ ws, first: String(data), setCookie }));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`refused ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

const nextMessage = (ws: WebSocket) =>
  new Promise<string>((resolve) => ws.once('message', (data) => resolve(String(data))));

describe('the path proxy ALL /api/workspaces/:w/services/:id/http/*', () => {
  it('carries every method with a streamed request body, and the query string', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'GET', 'OPTIONS']) {
      const withBody = method !== 'GET';
      const res = await rawRequest(served.port, {
        method,
        path: `${proxy}/api/items?a=1&b=two`,
        // Node's client frames a DELETE or OPTIONS body only when asked to.
        headers: {
          cookie: user.cookie,
          'content-type': 'text/plain',
          ...(withBody ? { 'transfer-encoding': 'chunked' } : {}),
        },
        ...(withBody ? { body: ['part one, ', 'part two, ', 'part three'] } : {}),
      });
      expect(res.status, `${method} ${res.body}`).toBe(200);
      const echo = JSON.parse(res.body) as Echo;
      expect(echo).toMatchObject({
        method,
        url: '/api/items?a=1&b=two',
        body: withBody ? 'part one, part two, part three' : '',
      });
      if (withBody) expect(echo.headers['transfer-encoding']).toBe('chunked');
    }
    const head = await rawRequest(served.port, {
      method: 'HEAD',
      path: `${proxy}/`,
      headers: { cookie: user.cookie },
    });
    expect(head).toMatchObject({ status: 200, body: '' });
  });

  it('passes a body past the API’s 1 MB limit through to the service', async () => {
    const big = 'x'.repeat(3 * 1024 * 1024);
    const res = await rawRequest(served.port, {
      method: 'POST',
      path: `${proxy}/upload`,
      headers: { cookie: user.cookie },
      body: [big],
    });
    expect(res.status).toBe(200);
    expect((JSON.parse(res.body) as Echo).body.length).toBe(big.length);
  });

  it('sets x-forwarded-for/host/proto, honours x-forwarded-path, and never forwards AutoCoder’s credentials', async () => {
    const res = await rawRequest(served.port, {
      path: `${proxy}/ignored`,
      headers: {
        cookie: `theme=dark; ${user.cookie}; autocoder_preview=abc`,
        authorization: 'Bearer agent-token-123',
        'x-anthropic-key': 'sk-ant-secret',
        'x-forwarded-path': '/chosen/path?q=1',
      },
    });
    const echo = JSON.parse(res.body) as Echo;
    expect(echo.url).toBe('/chosen/path?q=1');
    expect(echo.headers).toMatchObject({
      'x-forwarded-for': '127.0.0.1',
      'x-forwarded-host': `127.0.0.1:${served.port}`,
      'x-forwarded-proto': 'http',
      cookie: 'theme=dark',
    });
    expect(JSON.stringify(echo.headers)).not.toMatch(
      /autocoder_session|autocoder_preview|agent-token-123|sk-ant-secret/,
    );
    expect(echo.headers.authorization).toBeUndefined();
  });

  it('returns redirects as they are, keeps the service’s cookies but not ones named like AutoCoder’s, and sandboxes its pages', async () => {
    const redirect = await rawRequest(served.port, {
      path: `${proxy}/redirect`,
      headers: { cookie: user.cookie },
    });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.location).toBe('/elsewhere');
    const page = await rawRequest(served.port, { path: `${proxy}/`, headers: { cookie: user.cookie } });
    expect(page.headers['set-cookie']).toEqual(['svc=1; Path=/']);
    expect(page.headers['content-security-policy']).toMatch(/^sandbox /);
    expect(page.headers['content-security-policy']).not.toMatch(/allow-same-origin/);
  });

  it('refuses, while the service runs: another user (404), no session or a signed-out one (401), a write from another origin (403), a foreign host (421)', async () => {
    const page = `${proxy}/`;
    const statusOf = async (headers: Record<string, string>, method = 'GET') => {
      const res = await rawRequest(served.port, { method, path: page, headers });
      return [res.status, (JSON.parse(res.body) as { error?: string }).error];
    };
    expect(await statusOf({ cookie: user.cookie })).toEqual([200, undefined]);
    const other = await signedInClient(served.t.app);
    expect(await statusOf({ cookie: other.client.cookie })).toEqual([404, 'WORKSPACE_NOT_FOUND']);
    expect(await statusOf({})).toEqual([401, 'UNAUTHORIZED']);
    const write = { cookie: user.cookie, origin: 'http://evil.example' };
    expect(await statusOf(write, 'POST')).toEqual([403, 'FORBIDDEN_ORIGIN']);
    expect(await statusOf({ cookie: user.cookie, 'sec-fetch-site': 'cross-site' }, 'POST')).toEqual([
      403,
      'FORBIDDEN_ORIGIN',
    ]);
    expect(await statusOf({ cookie: user.cookie, host: 'rebound.example' })).toEqual([
      421,
      'MISDIRECTED_REQUEST',
    ]);

    // A second session of the same user, signed out: its cookie stops working at once.
    const second = new TestClient(served.t.app);
    const login = await second.post('/api/auth/login', {
      email: user.email,
      password: 'correct horse battery',
    });
    expect(login.status).toBe(200);
    expect(await statusOf({ cookie: second.cookie })).toEqual([200, undefined]);
    expect((await second.post('/api/auth/logout')).status).toBeLessThan(300);
    expect(await statusOf({ cookie: second.cookie })).toEqual([401, 'UNAUTHORIZED']);
  });

  it('streams the service’s answer as it comes', async () => {
    const arrivals = await new Promise<{ at: number; text: string }[]>((resolve, reject) => {
      const seen: { at: number; text: string }[] = [];
      const started = Date.now();
      httpRequest(
        { host: '127.0.0.1', port: served.port, path: `${proxy}/stream`, headers: { cookie: user.cookie } },
        (res) => {
          res.on('data', (chunk: Buffer) => seen.push({ at: Date.now() - started, text: chunk.toString() }));
          res.on('end', () => resolve(seen));
        },
      )
        .on('error', reject)
        .end();
    });
    expect(arrivals.map((a) => a.text).join('')).toBe('tick 0\ntick 1\ntick 2\n');
    // The first tick arrived before the service had written the last (150 ms apart).
    expect(arrivals.length).toBeGreaterThanOrEqual(2);
    expect((arrivals.at(-1)?.at ?? 0) - (arrivals[0]?.at ?? 0)).toBeGreaterThanOrEqual(200);
  });

  it('keeps its own connection to the service, and frames each client’s answer for it', async () => {
    // The client's `Connection: close` is about its own connection, not the service's.
    const closing = await rawRequest(served.port, {
      path: `${proxy}/`,
      headers: { cookie: user.cookie, connection: 'close' },
    });
    expect((JSON.parse(closing.body) as Echo).headers.connection).toBe('keep-alive');
    // An HTTP/1.0 client gets the streamed answer delimited by the end of the connection, not chunked.
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(served.port, '127.0.0.1', () =>
        socket.write(
          `GET ${proxy}/stream HTTP/1.0\r\nHost: 127.0.0.1:${served.port}\r\nCookie: ${user.cookie}\r\n\r\n`,
        ),
      );
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString();
      });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    const [head = '', body] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    expect(head.toLowerCase()).not.toContain('transfer-encoding');
    expect(body).toBe('tick 0\ntick 1\ntick 2\n');
  });

  it('breaks off the client’s answer when the service breaks off its own, and serves on when a client goes mid-answer', async () => {
    const outcome = await new Promise<string>((resolve) => {
      httpRequest(
        { host: '127.0.0.1', port: served.port, path: `${proxy}/break`, headers: { cookie: user.cookie } },
        (res) => {
          res.on('data', () => {});
          res.on('end', () => resolve(`ended ${res.statusCode}`));
          res.on('error', (error) => resolve(`broken: ${error.message}`));
        },
      )
        .on('error', (error) => resolve(`broken: ${error.message}`))
        .end();
    });
    expect(outcome).toMatch(/^broken/);
    // A client that goes away mid-answer leaves the proxy serving the next one.
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port: served.port, path: `${proxy}/stream`, headers: { cookie: user.cookie } },
        (res) => res.once('data', () => req.destroy()),
      );
      req.on('close', () => resolve()).on('error', () => resolve());
      req.setTimeout(5_000, () => reject(new Error('no answer')));
      req.end();
    });
    const next = await rawRequest(served.port, { path: `${proxy}/`, headers: { cookie: user.cookie } });
    expect(next.status).toBe(200);
  });

  it('carries a WebSocket through to the service, without the session cookie', async () => {
    const url = `ws://127.0.0.1:${served.port}${proxy}/socket?x=1`;
    const { ws, first, setCookie } = await openSocket(url, {
      cookie: `theme=dark; ${user.cookie}`,
      origin: `http://127.0.0.1:${served.port}`,
    });
    expect(first).toBe('hello /socket?x=1 cookie=theme=dark');
    // The service's own cookie passes; one naming AutoCoder's session never reaches its origin.
    expect(setCookie).toEqual(['svc=1; Path=/']);
    const reply = nextMessage(ws);
    ws.send('ping');
    expect(await reply).toBe('echo:ping');
    ws.close();
  });

  it('refuses a WebSocket from another origin, or without a session', async () => {
    const url = `ws://127.0.0.1:${served.port}${proxy}/socket`;
    await expect(openSocket(url, { cookie: user.cookie, origin: 'http://evil.example' })).rejects.toThrow(
      'refused 403',
    );
    await expect(openSocket(url, {})).rejects.toThrow('refused 401');
    await expect(
      openSocket(`ws://127.0.0.1:${served.port}/api/health`, { cookie: user.cookie }),
    ).rejects.toThrow('refused 404');
  });
});
