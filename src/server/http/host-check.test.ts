import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess } from '../testing/server-process.js';
import { createTestApp, type TestApp, TestClient } from '../testing/test-app.js';
import { hostRulesFor } from './host-check.js';

/** A request over a real socket with whatever Host header we like (fetch will not send a foreign one). */
function get(url: string, host: string, method = 'GET', body?: string) {
  return new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    const target = new URL(url);
    const headers: Record<string, string> = { host };
    if (body) headers['content-type'] = 'application/json';
    const req = http.request(
      { host: target.hostname, port: target.port, path: target.pathname, method, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString() || '{}'),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('Host check in the app', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('refuses a foreign Host with 421 before any route runs', async () => {
    const client = new TestClient(t.app);
    const health = await client.request('GET', '/api/health', undefined, { host: 'evil.example' });
    expect(health.status).toBe(421);
    expect(health.body).toMatchObject({ error: 'MISDIRECTED_REQUEST' });

    const email = `rebind-${Date.now()}@example.com`;
    const account = { email, password: 'correct horse battery' };
    const register = await client.request('POST', '/api/auth/register', account, {
      host: 'evil.example',
      origin: 'http://evil.example',
    });
    expect(register.status).toBe(421);
    const login = await client.request('POST', '/api/auth/login', account, { host: 'evil.example:3000' });
    expect(login.status).toBe(421);
    expect(client.cookie).toBe('');
    // The refused register created nothing: the same account registers on our own host.
    expect((await client.post('/api/auth/register', account)).status).toBe(201);
    expect((await client.get('/api/auth/me')).status).toBe(200);
  });

  it('answers its own host and 404 for the reserved preview subdomains', async () => {
    const client = new TestClient(t.app);
    expect((await client.get('/api/health')).status).toBe(200);
    const preview = await client.request('GET', '/api/health', undefined, { host: 'my-app.localhost' });
    expect(preview.status).toBe(404);
    expect(preview.body).toMatchObject({ error: 'NOT_FOUND' });
  });
});

describe('hostRulesFor', () => {
  const base = { baseDomain: 'localhost', machine: () => ['builder', '10.1.2.3', 'fe80::1'] };

  it('answers the loopback names on the listening port', () => {
    const { own } = hostRulesFor({ ...base, publicUrl: undefined, listenHost: '127.0.0.1', port: 3000 });
    expect([...own].sort()).toEqual(['127.0.0.1:3000', '[::1]:3000', 'localhost:3000']);
  });

  it('drops the port only on port 80', () => {
    const { own } = hostRulesFor({ ...base, publicUrl: undefined, listenHost: '127.0.0.1', port: 80 });
    expect(own.has('localhost')).toBe(true);
    expect(own.has('localhost:80')).toBe(true);
  });

  it('adds the machine’s names on 0.0.0.0', () => {
    const { own } = hostRulesFor({ ...base, publicUrl: undefined, listenHost: '0.0.0.0', port: 3000 });
    expect(own.has('builder:3000')).toBe(true);
    expect(own.has('10.1.2.3:3000')).toBe(true);
    expect(own.has('[fe80::1]:3000')).toBe(true);
    expect(own.has('localhost:3000')).toBe(true);
  });

  it('answers only the public URL’s host when it is set', () => {
    const { own } = hostRulesFor({
      ...base,
      publicUrl: 'https://Board.Example.com/',
      listenHost: '0.0.0.0',
      port: 3000,
    });
    expect([...own].sort()).toEqual(['board.example.com', 'board.example.com:443']);
  });
});

describe('Host check of the real server', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'autocoder-host-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('answers the loopback names on its port only', { timeout: 60_000 }, async () => {
    const server = await startServerProcess({ AUTOCODER_DATA_DIR: path.join(dataDir, 'a') });
    try {
      const port = new URL(server.url).port;
      expect((await get(`${server.url}/api/health`, `127.0.0.1:${port}`)).status).toBe(200);
      expect((await get(`${server.url}/api/health`, `localhost:${port}`)).status).toBe(200);
      expect((await get(`${server.url}/api/health`, 'localhost')).status).toBe(421);
      expect((await get(`${server.url}/api/health`, `evil.example:${port}`)).status).toBe(421);
      expect((await get(`${server.url}/`, `evil.example:${port}`)).status).toBe(421);
      const login = await get(`${server.url}/api/auth/login`, 'evil.example', 'POST', '{}');
      expect(login).toMatchObject({ status: 421, body: { error: 'MISDIRECTED_REQUEST' } });
      expect((await get(`${server.url}/api/health`, `preview-1.localhost:${port}`)).status).toBe(404);
    } finally {
      await server.stop();
    }
  });
});
