import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Service, ServicePreview } from '@/contracts/services.js';
import { signedInClient } from '@/server/testing/test-app.js';
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

beforeAll(async () => {
  served = await serveTestApp();
  user = await userWithWorkspace(served);
  await writeService(
    user.repoPath,
    'web',
    echoService('//---\n// http: auto\n// path: /hello?from=preview\n//---'),
  );
  await writeService(user.repoPath, 'other', echoService('//---\n// http: auto\n//---'));
  await writeService(user.repoPath, 'worker', '#!/bin/sh\nexec sleep 600\n');
  for (const id of ['web', 'other']) await user.client.post(`${user.api}/${id}/start`);
  for (const id of ['web', 'other']) {
    await waitFor(
      async () => (await user.client.get<Service>(`${user.api}/${id}`)).body,
      (s) => s.status === 'running',
    );
  }
}, 60_000);
afterAll(() => served?.close());

/** Asks for a preview link; answers its host and path (the client connects to 127.0.0.1 with that Host). */
async function previewLink(serviceId: string) {
  const res = await user.client.post<ServicePreview>(`${user.api}/${serviceId}/preview`, undefined);
  expect(res.status).toBe(200);
  const url = new URL(res.body.url);
  return { url, host: url.host, path: `${url.pathname}${url.search}` };
}

/** Opens a preview link as a browser would: answers the preview cookie (name=value) it set. */
async function redeem(serviceId: string) {
  const link = await previewLink(serviceId);
  const res = await rawRequest(served.port, {
    path: link.path,
    headers: { host: `${link.url.hostname}:${served.port}` },
  });
  const cookie = (res.headers['set-cookie'] ?? [])[0]?.split(';')[0] ?? '';
  return { res, cookie, host: `${link.url.hostname}:${served.port}` };
}

describe('subdomain previews with a one-time ticket', () => {
  it('answers a preview URL on the base domain, with a ticket', async () => {
    const { url } = await previewLink('web');
    expect(url.hostname).toBe(`${user.workspaceId.toLowerCase()}-svc-web.localhost`);
    expect(url.pathname).toBe('/__autocoder/preview');
    expect(url.searchParams.get('ticket')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('turns the ticket into a host-only httpOnly cookie and redirects to the service’s urlPath', async () => {
    const { res, cookie } = await redeem('web');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/hello?from=preview');
    const setCookie = res.headers['set-cookie']?.[0] ?? '';
    expect(setCookie).toMatch(/^autocoder_preview=[A-Za-z0-9_-]{43}; /);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/Path=\//);
    expect(setCookie).not.toMatch(/Domain=/i);
    // Sent inside AutoCoder's page (a cross-site frame), kept where third-party cookies are blocked.
    expect(setCookie).toMatch(/SameSite=None/);
    expect(setCookie).toMatch(/; Secure/);
    expect(setCookie).toMatch(/; Partitioned/);
    expect(cookie).toMatch(/^autocoder_preview=/);
  });

  it('lets the app’s pages frame previews, and nothing else of another origin', async () => {
    const res = await rawRequest(served.port, { path: '/api/health' });
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toMatch(/frame-src 'self' http:\/\/\*\.localhost:\* https:\/\/\*\.localhost:\*/);
    expect(csp).toMatch(/frame-ancestors 'none'/);
  });

  it('proxies with the cookie, which the service never sees (nor the session cookie)', async () => {
    const { cookie, host } = await redeem('web');
    const res = await rawRequest(served.port, {
      path: '/hello?from=preview',
      headers: { host, cookie: `theme=dark; ${cookie}; ${user.cookie}` },
    });
    expect(res.status).toBe(200);
    const echo = JSON.parse(res.body) as { url: string; headers: Record<string, string> };
    expect(echo.url).toBe('/hello?from=preview');
    expect(echo.headers.cookie).toBe('theme=dark');
    expect(echo.headers['x-forwarded-host']).toBe(host);
    expect(JSON.stringify(echo.headers)).not.toMatch(/autocoder_/);
    // No sandbox on the preview: it is an origin of its own.
    expect(res.headers['content-security-policy']).toBeUndefined();
  });

  it('answers 401 without a valid cookie: none, another service’s, a used or an expired ticket', async () => {
    const web = await redeem('web');
    const noCookie = await rawRequest(served.port, { path: '/', headers: { host: web.host } });
    expect(noCookie.status).toBe(401);
    expect(JSON.parse(noCookie.body)).toMatchObject({ error: 'preview_unauthorized' });
    const page = await rawRequest(served.port, {
      path: '/',
      headers: { host: web.host, accept: 'text/html' },
    });
    expect(page.status).toBe(401);
    expect(page.headers['content-type']).toMatch(/^text\/html/);

    const other = await redeem('other');
    expect(
      (await rawRequest(served.port, { path: '/', headers: { host: web.host, cookie: other.cookie } }))
        .status,
    ).toBe(401);
    expect(
      (await rawRequest(served.port, { path: '/', headers: { host: other.host, cookie: other.cookie } }))
        .status,
    ).toBe(200);

    const link = await previewLink('web');
    const host = `${link.url.hostname}:${served.port}`;
    expect((await rawRequest(served.port, { path: link.path, headers: { host } })).status).toBe(302);
    expect((await rawRequest(served.port, { path: link.path, headers: { host } })).status).toBe(401);

    const late = await previewLink('web');
    served.t.advance(61_000);
    expect((await rawRequest(served.port, { path: late.path, headers: { host } })).status).toBe(401);
    // A ticket for one service's host does not open another's.
    const forWeb = await previewLink('web');
    expect((await rawRequest(served.port, { path: forWeb.path, headers: { host: other.host } })).status).toBe(
      401,
    );
  });

  it('carries a WebSocket through the preview host, with the cookie stripped', async () => {
    const { cookie, host } = await redeem('web');
    const ws = new WebSocket(`ws://127.0.0.1:${served.port}/live`, {
      headers: { host, cookie: `${cookie}; theme=dark` },
    });
    const first = await new Promise<string>((resolve, reject) => {
      ws.once('message', (data) => resolve(String(data)));
      ws.once('error', reject);
    });
    expect(first).toBe('hello /live cookie=theme=dark');
    const reply = new Promise<string>((resolve) => ws.once('message', (data) => resolve(String(data))));
    ws.send('hi');
    expect(await reply).toBe('echo:hi');
    ws.close();
    const refused = await new Promise<number>((resolve) => {
      const bare = new WebSocket(`ws://127.0.0.1:${served.port}/live`, { headers: { host } });
      bare.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      bare.once('error', () => resolve(-1));
    });
    expect(refused).toBe(401);
  });

  it('opens a preview WebSocket only from the preview itself or another preview of its workspace', async () => {
    const { cookie, host } = await redeem('web');
    const status = (origin: string) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(`ws://127.0.0.1:${served.port}/live`, { headers: { host, cookie, origin } });
        ws.once('open', () => {
          ws.close();
          resolve(101);
        });
        ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.once('error', () => resolve(-1));
      });
    const workspaceId = host.split('-svc-')[0]!;
    expect(await status(`http://${host}`)).toBe(101);
    expect(await status(`http://${workspaceId}-svc-api.localhost:${served.port}`)).toBe(101);
    expect(await status('https://evil.example')).toBe(403);
    expect(await status(`http://01aaaaaaaaaaaaaaaaaaaaaaaa-svc-web.localhost:${served.port}`)).toBe(403);
    expect(await status(`http://localhost:${served.port}`)).toBe(403);
    expect(await status('null')).toBe(403);
  });

  it('gives no preview for a service without a port, nor for someone else’s workspace', async () => {
    const noPort = await user.client.post(`${user.api}/worker/preview`, undefined);
    expect(noPort.status).toBe(400);
    expect(noPort.body).toMatchObject({ error: 'service_no_port', serviceId: 'worker' });
    const stranger = await signedInClient(served.t.app);
    expect((await stranger.client.post(`${user.api}/web/preview`, undefined)).status).toBe(404);
  });

  it('keeps other subdomains of the base domain out of the app', async () => {
    const res = await rawRequest(served.port, {
      path: '/api/health',
      headers: { host: `foo.localhost:${served.port}` },
    });
    expect(res.status).toBe(404);
  });
});
