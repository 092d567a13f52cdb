import { createServer, request as httpRequest, type Server } from 'node:http';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '@/server/lib/logger.js';
import { type ForwardOptions, forwardedHeaders } from './forward-headers.js';
import { UpstreamPool } from './upstream.js';

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

const portOf = (server: Server | NetServer) => {
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
};

const listening = <T extends Server | NetServer>(server: T) =>
  new Promise<T>((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve(server));
    closers.push(() => server.close());
  });

/**
 * A service speaking raw HTTP: `answer(n, socket)` is called for the n-th request on a connection
 * (from 1) and writes what it wants; it sees how many connections were opened.
 */
async function rawService(answer: (n: number, socket: Socket, request: string) => void) {
  const seen = { connections: 0, requests: [] as string[] };
  const server = createNetServer((socket) => {
    seen.connections += 1;
    let n = 0;
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      for (let end = buffered.indexOf('\r\n\r\n'); end !== -1; end = buffered.indexOf('\r\n\r\n')) {
        const request = buffered.slice(0, end);
        buffered = buffered.slice(end + 4);
        seen.requests.push(request);
        n += 1;
        answer(n, socket, request);
      }
    });
    socket.on('error', () => {});
    closers.push(() => socket.destroy());
  });
  return { port: portOf(await listening(server)), seen };
}

/** The app's side: every request goes to `port` through the pool. */
async function front(port: number, maxConnections?: number) {
  const pool = new UpstreamPool(createLogger('silent'), maxConnections);
  closers.push(() => pool.close());
  const server = createServer((req, res) => {
    const options: ForwardOptions = {
      target: { endpoint: { host: '127.0.0.1', port }, host: '127.0.0.1', port, protocol: 'http' },
      path: req.url ?? '/',
      forwardedHost: req.headers.host ?? '',
      proto: 'http',
      clientIp: '127.0.0.1',
      stripCookies: ['autocoder_session'],
    };
    pool.send(req.method ?? 'GET', forwardedHeaders(req, options), req.headers.accept, res, options);
  });
  return portOf(await listening(server));
}

/** One request on a connection of its own; answers status, headers and body, or the error. */
const get = (port: number, path = '/', method = 'GET') =>
  new Promise<{ status: number; headers: Record<string, unknown>; body: string } | { error: string }>(
    (resolve) => {
      const req = httpRequest({ host: '127.0.0.1', port, path, method, agent: false }, (res) => {
        let body = '';
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', (error) => resolve({ error: error.message }));
      });
      req.on('error', (error) => resolve({ error: error.message }));
      req.end();
    },
  );

const ok = (body: string) => `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`;

describe('UpstreamPool', () => {
  it('sends the request in one piece and keeps its connection for the next', async () => {
    const service = await rawService((n, socket) => socket.write(ok(`answer ${n}`)));
    const port = await front(service.port);
    expect(await get(port, '/one?x=1')).toMatchObject({ status: 200, body: 'answer 1' });
    expect(await get(port, '/two')).toMatchObject({ status: 200, body: 'answer 2' });
    expect(service.seen.connections).toBe(1);
    expect(service.seen.requests[0]).toMatch(/^GET \/one\?x=1 HTTP\/1\.1\r\nhost: 127\.0\.0\.1:\d+\r\n/);
    expect(service.seen.requests[0]).toMatch(/\r\nconnection: keep-alive$/);
  });

  it('sends a request again on a new connection when the kept one was closed by the service', async () => {
    // The service closes its idle connection as the second request arrives, without an answer.
    const service = await rawService((n, socket) => {
      if (n === 1) socket.write(ok('first'));
      else socket.destroy();
    });
    const port = await front(service.port);
    expect(await get(port)).toMatchObject({ status: 200, body: 'first' });
    expect(await get(port)).toMatchObject({ status: 200, body: 'first' });
    expect(service.seen.connections).toBe(2);
  });

  it('answers 503 connection_refused when nothing listens, 502 for an answer that does not parse', async () => {
    const closed = await listening(createNetServer());
    const refusedPort = portOf(closed);
    await new Promise((resolve) => closed.close(resolve));
    const refused = await get(await front(refusedPort));
    expect(refused).toMatchObject({ status: 503 });
    expect('body' in refused && JSON.parse(refused.body)).toMatchObject({ error: 'connection_refused' });

    const garbage = await rawService((_n, socket) => socket.end('SSH-2.0-OpenSSH\r\n\r\n'));
    expect(await get(await front(garbage.port))).toMatchObject({ status: 502 });
  });

  it('re-frames a chunked answer, drops its hop-by-hop headers, and breaks off a cut one', async () => {
    const service = await rawService((n, socket) => {
      if (n === 1) {
        socket.write(
          'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nKeep-Alive: timeout=5\r\nX-Kept: yes\r\n\r\n',
        );
        socket.write('3\r\nabc\r\n');
        socket.write('2\r\nde\r\n0\r\n\r\n');
      } else {
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhalf');
        socket.destroy();
      }
    });
    const port = await front(service.port);
    const streamed = await get(port);
    expect(streamed).toMatchObject({ status: 200, body: 'abcde', headers: { 'x-kept': 'yes' } });
    expect('headers' in streamed && streamed.headers['keep-alive']).toBeFalsy();
    expect(await get(port)).toMatchObject({ error: 'aborted' });
  });

  it('relays a large answer intact, chunked or not, while the client reads slowly', async () => {
    const big = Buffer.alloc(6 * 1024 * 1024, 'abcdefghij');
    const service = await rawService((n, socket) => {
      if (n === 1) socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${big.length}\r\n\r\n`);
      else socket.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n');
      for (let at = 0; at < big.length; at += 1024 * 1024) {
        const piece = big.subarray(at, at + 1024 * 1024);
        socket.write(
          n === 1
            ? piece
            : Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]),
        );
      }
      if (n !== 1) socket.write('0\r\n\r\n');
    });
    const port = await front(service.port);
    for (let i = 0; i < 2; i += 1) {
      const received = await new Promise<Buffer>((resolve, reject) => {
        httpRequest({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => {
            chunks.push(chunk);
            // Reads in bursts, so that the proxy's writes to this client fill its socket.
            res.pause();
            setImmediate(() => res.resume());
          });
          res.on('end', () => resolve(Buffer.concat(chunks)));
          res.on('error', reject);
        })
          .on('error', reject)
          .end();
      });
      expect(received.equals(big)).toBe(true);
    }
    expect(service.seen.connections).toBe(1);
  });

  it('answers HEAD without a body, whatever its Content-Length says', async () => {
    const service = await rawService((_n, socket) =>
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n'),
    );
    const port = await front(service.port);
    expect(await get(port, '/', 'HEAD')).toMatchObject({ status: 200, body: '' });
    expect(await get(port, '/', 'HEAD')).toMatchObject({ status: 200, body: '' });
    expect(service.seen.connections).toBe(1);
  });
});

describe('UpstreamPool limits', () => {
  it('opens at most its limit of connections to a service: more requests wait their turn, a gone one is never sent', async () => {
    let holding = true;
    const held: { socket: Socket; path: string }[] = [];
    const pathOf = (request: string) => request.split(' ')[1] ?? '';
    const service = await rawService((_n, socket, request) => {
      if (holding) held.push({ socket, path: pathOf(request) });
      else socket.write(ok(`answer ${pathOf(request)}`));
    });
    const port = await front(service.port, 2);
    const answers = ['/1', '/2', '/3', '/4'].map((path) => get(port, path));
    // A fifth client gives up while it waits: its request never reaches the service.
    const gone = new Promise<void>((resolve) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/gone', agent: false });
      req.on('error', () => resolve());
      req.end();
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 300);
    });
    await expect.poll(() => held.length).toBe(2);
    await gone;
    expect(service.seen.connections).toBe(2);
    holding = false;
    for (const { socket, path } of held.splice(0)) socket.write(ok(`answer ${path}`));
    const done = await Promise.all(answers);
    expect(done.map((answer) => ('body' in answer ? answer.body : answer.error))).toEqual([
      'answer /1',
      'answer /2',
      'answer /3',
      'answer /4',
    ]);
    expect(service.seen.connections).toBe(2);
    expect(service.seen.requests.map(pathOf)).not.toContain('/gone');
  });

  it('gives a waiting request a new connection when a busy one closes', async () => {
    const service = await rawService((n, socket, request) => {
      if (request.startsWith('GET /close')) socket.destroy();
      else socket.write(ok(`answer ${n}`));
    });
    const port = await front(service.port, 1);
    const [closed, next] = await Promise.all([get(port, '/close'), get(port, '/next')]);
    expect(closed).toMatchObject({ status: 502 });
    expect(next).toMatchObject({ status: 200, body: 'answer 1' });
    expect(service.seen.connections).toBe(2);
  });
});
