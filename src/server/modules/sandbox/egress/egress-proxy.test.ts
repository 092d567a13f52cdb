import { once } from 'node:events';
import { existsSync, statSync } from 'node:fs';
import http from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  closedPort,
  connectUnix,
  httpConnect,
  socksDomain,
  socksIp,
  socksRequest,
  startEchoServer,
  startOriginServer,
  startTestProxy,
} from './egress-testing.js';
import { SOCKS_REPLY } from './socks5-proxy.js';

type TestProxy = Awaited<ReturnType<typeof startTestProxy>>;
let echo: Awaited<ReturnType<typeof startEchoServer>>;
let origin: Awaited<ReturnType<typeof startOriginServer>>;
const proxies: TestProxy[] = [];

const proxyWith = async (limits: Parameters<typeof startTestProxy>[0] = {}) => {
  const started = await startTestProxy(limits);
  proxies.push(started);
  return started;
};

beforeAll(async () => {
  echo = await startEchoServer();
  origin = await startOriginServer();
});
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((p) => p.stop()));
});
afterAll(() => {
  echo.server.close();
  origin.server.close();
});

describe('the HTTP proxy: CONNECT', () => {
  it('tunnels to an allowed host, reaching it at the address checked', async () => {
    const { proxy } = await proxyWith();
    const tunnel = await httpConnect(proxy.httpSocketPath, `allowed.test:${echo.port}`);
    expect(tunnel.head).toBe('HTTP/1.1 200 Connection Established\r\n\r\n');
    tunnel.socket.write('ping');
    expect((await tunnel.until((d) => d.length >= tunnel.head.length + 4)).toString()).toContain('ping');
    tunnel.socket.destroy();
  });

  it('refuses a host that is not on the list with 403 naming it, before any lookup', async () => {
    const { proxy, denials, lookups } = await proxyWith();
    const refused = await httpConnect(proxy.httpSocketPath, `unlisted.test:${echo.port}`);
    expect(refused.status).toBe(403);
    expect(refused.body).toBe(`unlisted.test:${echo.port} is not on this sandbox's network allow-list\n`);
    expect(denials).toEqual([{ host: 'unlisted.test', port: echo.port, reason: 'not-allowed' }]);
    expect(lookups).toEqual([]);
    expect(proxy.stats().denied).toBe(1);
  });

  it.each(['loopback.test', 'private.test', 'metadata.test', 'rebinding.test', '127.0.0.1', '127.1'])(
    'refuses %s, which is on the list but resolves to a private address',
    async (host) => {
      const { proxy, denials } = await proxyWith();
      const refused = await httpConnect(proxy.httpSocketPath, `${host}:${echo.port}`);
      expect(refused.status).toBe(403);
      expect(refused.body).toMatch(/resolves to a loopback, private or link-local address/);
      expect(denials.map((d) => d.reason)).toEqual(['private-address']);
    },
  );

  it('answers 502 when the allowed upstream refuses, and 400 for a target without a port', async () => {
    const { proxy } = await proxyWith();
    const port = await closedPort();
    const failed = await httpConnect(proxy.httpSocketPath, `refused.test:${port}`);
    expect([failed.status, failed.body]).toEqual([502, `refused.test:${port} refused the connection\n`]);
    expect((await httpConnect(proxy.httpSocketPath, 'allowed.test')).status).toBe(400);
    expect(proxy.stats().failed).toBe(1);
  });

  it('passes what the client sends with its CONNECT straight on', async () => {
    const { proxy } = await proxyWith();
    const client = await connectUnix(proxy.httpSocketPath);
    client.socket.write(`CONNECT allowed.test:${echo.port} HTTP/1.1\r\n\r\neager`);
    const got = await client.until((d) => d.toString().endsWith('eager'));
    expect(got.toString()).toBe('HTTP/1.1 200 Connection Established\r\n\r\neager');
    client.socket.destroy();
  });
});

describe('the HTTP proxy: plain http', () => {
  const get = (socketPath: string, url: string, headers: Record<string, string>, agent?: http.Agent) =>
    new Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders; reused: boolean }>(
      (resolve, reject) => {
        const req = http.request({ socketPath, path: url, headers, agent }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            body += chunk;
          });
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body, headers: res.headers, reused: req.reusedSocket }),
          );
        });
        req.on('error', reject);
        req.end();
      },
    );

  it('forwards to an allowed host without the proxy and hop-by-hop headers', async () => {
    const { proxy } = await proxyWith();
    const res = await get(proxy.httpSocketPath, `http://allowed.test:${origin.port}/path?q=1`, {
      'Proxy-Authorization': 'Basic c2VjcmV0',
      'Proxy-Connection': 'keep-alive',
      Connection: 'keep-alive, X-Hop',
      'X-Hop': 'dropped',
      'X-Kept': 'yes',
    });
    expect(res.status).toBe(200);
    const seen = JSON.parse(res.body) as { url: string; method: string; rawHeaders: string[] };
    expect(seen.url).toBe('/path?q=1');
    const names = seen.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
    expect(names).not.toContain('proxy-authorization');
    expect(names).not.toContain('proxy-connection');
    expect(names).not.toContain('x-hop');
    expect(seen.rawHeaders).toEqual(
      expect.arrayContaining(['X-Kept', 'yes', 'Host', `allowed.test:${origin.port}`]),
    );
    expect(seen.rawHeaders).toEqual(expect.arrayContaining(['Connection', 'close']));
    expect(res.headers['set-cookie']).toEqual(['a=1', 'b=2']);
  });

  it('serves several requests on one kept-alive connection from the sandbox', async () => {
    const { proxy } = await proxyWith();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const url = `http://allowed.test:${origin.port}/`;
    const first = await get(proxy.httpSocketPath, url, {}, agent);
    const second = await get(proxy.httpSocketPath, `${url}again`, {}, agent);
    agent.destroy();
    expect([first.status, second.status, second.reused]).toEqual([200, 200, true]);
    expect(JSON.parse(second.body).url).toBe('/again');
  });

  it('refuses an unlisted or private host with 403, and a request that is not absolute-form with 400', async () => {
    const { proxy } = await proxyWith();
    const unlisted = await get(proxy.httpSocketPath, `http://unlisted.test:${origin.port}/`, {});
    expect([unlisted.status, unlisted.body]).toEqual([
      403,
      `unlisted.test:${origin.port} is not on this sandbox's network allow-list\n`,
    ]);
    expect((await get(proxy.httpSocketPath, 'http://metadata.test/latest/meta-data/', {})).status).toBe(403);
    expect((await get(proxy.httpSocketPath, '/relative', {})).status).toBe(400);
  });
});

describe('the SOCKS5 proxy', () => {
  it('connects to an allowed name it resolves itself (socks5h)', async () => {
    const { proxy } = await proxyWith();
    const tunnel = await socksRequest(proxy.socksSocketPath, socksDomain(1, 'allowed.test', echo.port));
    expect([tunnel.greeting, tunnel.reply]).toEqual([[5, 0], SOCKS_REPLY.succeeded]);
    tunnel.socket.write('ping');
    expect((await tunnel.until((d) => d.length >= 16)).subarray(12).toString()).toBe('ping');
    tunnel.socket.destroy();
  });

  it.each([
    ['an unlisted name', socksDomain(1, 'unlisted.test', 443), 'not-allowed'],
    ['a listed name that resolves to 10.x', socksDomain(1, 'private.test', 443), 'private-address'],
    [
      'a listed name that resolves to the metadata address',
      socksDomain(1, 'metadata.test', 80),
      'private-address',
    ],
    ['the listed IPv4 literal 127.0.0.1', socksIp(1, '127.0.0.1', 443), 'private-address'],
    ['the IPv6 literal ::1', socksIp(1, '::1', 443), 'not-allowed'],
  ])('refuses %s as not allowed by the ruleset', async (_, request, reason) => {
    const { proxy, denials } = await proxyWith();
    const refused = await socksRequest(proxy.socksSocketPath, request);
    expect(refused.reply).toBe(SOCKS_REPLY.notAllowed);
    expect(denials.map((d) => d.reason)).toEqual([reason]);
    await refused.closed;
  });

  it('answers host unreachable, refused, and command not supported for BIND and UDP', async () => {
    const { proxy } = await proxyWith();
    const path = proxy.socksSocketPath;
    expect((await socksRequest(path, socksDomain(1, 'allowed.test.', 0))).reply).toBe(
      SOCKS_REPLY.hostUnreachable,
    );
    const port = await closedPort();
    expect((await socksRequest(path, socksDomain(1, 'refused.test', port))).reply).toBe(SOCKS_REPLY.refused);
    expect((await socksRequest(path, socksDomain(2, 'allowed.test', echo.port))).reply).toBe(
      SOCKS_REPLY.commandNotSupported,
    );
    expect((await socksRequest(path, socksDomain(3, 'allowed.test', echo.port))).reply).toBe(
      SOCKS_REPLY.commandNotSupported,
    );
  });

  it('refuses a client that offers no method but authentication', async () => {
    const { proxy } = await proxyWith();
    const client = await connectUnix(proxy.socksSocketPath);
    client.socket.write(Buffer.from([5, 1, 2]));
    await client.closed;
    expect([...client.received()]).toEqual([5, 0xff]);
  });
});

describe('limits', () => {
  it('answers 431 to a request head over the byte limit', async () => {
    const { proxy } = await proxyWith({ maxHeadBytes: 1024 });
    const client = await connectUnix(proxy.httpSocketPath);
    client.socket.write(`CONNECT allowed.test:${echo.port} HTTP/1.1\r\nX-Pad: ${'a'.repeat(4096)}`);
    await client.closed;
    expect(client.received().toString()).toMatch(/^HTTP\/1\.1 431 /);
  });

  it('cuts a request head that never ends (slowloris), HTTP and SOCKS alike', async () => {
    const { proxy } = await proxyWith({ headTimeoutMs: 20 });
    const http1 = await connectUnix(proxy.httpSocketPath);
    http1.socket.write(`CONNECT allowed.test:${echo.port} HTTP/1.1\r\nX-Slow: 1\r\n`);
    const socks = await connectUnix(proxy.socksSocketPath);
    socks.socket.write(Buffer.from([5, 1, 0, 5, 1]));
    await Promise.all([http1.closed, socks.closed]);
    expect(http1.received().toString()).toMatch(/^HTTP\/1\.1 408 /);
    expect([...socks.received()]).toEqual([5, 0]);
  });

  it('closes connections over the cap at once', async () => {
    const { proxy } = await proxyWith({ maxConnections: 1 });
    const first = await socksRequest(proxy.socksSocketPath, socksDomain(1, 'allowed.test', echo.port));
    expect(first.reply).toBe(SOCKS_REPLY.succeeded);
    const second = await connectUnix(proxy.httpSocketPath);
    await second.closed;
    expect(second.received().length).toBe(0);
    expect(proxy.stats()).toMatchObject({ active: 1, accepted: 1, overLimit: 1 });
    first.socket.destroy();
  });

  it('cuts a tunnel idle past its limit', async () => {
    const { proxy } = await proxyWith({ idleTimeoutMs: 20 });
    const tunnel = await httpConnect(proxy.httpSocketPath, `allowed.test:${echo.port}`);
    expect(tunnel.status).toBe(200);
    await tunnel.closed;
  });
});

describe('the proxy instance', () => {
  it('makes its sockets 0600, and close() ends every tunnel and removes them', async () => {
    const { proxy } = await proxyWith();
    const target = await startEchoServer();
    expect(statSync(proxy.httpSocketPath).mode & 0o777).toBe(0o600);
    expect(statSync(proxy.socksSocketPath).mode & 0o777).toBe(0o600);
    const viaHttp = await httpConnect(proxy.httpSocketPath, `allowed.test:${target.port}`);
    const viaSocks = await socksRequest(proxy.socksSocketPath, socksDomain(1, 'allowed.test', target.port));
    expect([viaHttp.status, viaSocks.reply]).toEqual([200, 0]);
    const upstreams = [...target.sockets];
    expect(upstreams.length).toBe(2);
    await proxy.close();
    await Promise.all([viaHttp.closed, viaSocks.closed, ...upstreams.map((socket) => once(socket, 'close'))]);
    expect(existsSync(proxy.httpSocketPath) || existsSync(proxy.socksSocketPath)).toBe(false);
    target.server.close();
  });
});
