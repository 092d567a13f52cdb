import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import path from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './ports.js';
import { answersHttp, waitForAnswer } from './readiness.js';
import { type UnixRelay, unixRelay } from './testing/unix-relay.js';

let dir: string;
const closers: (() => unknown)[] = [];
beforeAll(async () => {
  dir = await mkdtemp('/tmp/ac-ready-');
});
afterAll(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await rm(dir, { recursive: true, force: true });
});

const listening = async <T extends Server | NetServer>(server: T): Promise<number> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => server.close());
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
};

let relays = 0;
/** A bridge (as the sandbox's) to `port` on 127.0.0.1. */
const bridgeTo = async (port: number): Promise<UnixRelay> => {
  relays += 1;
  const relay = await unixRelay(path.join(dir, `${relays}.sock`), '127.0.0.1', port);
  closers.push(() => relay.close());
  return relay;
};

const probe = { port: 8080, protocol: 'http' as const };
const never = new AbortController().signal;

describe('answersHttp', () => {
  it('says no for a bridge with nothing behind it, and yes for any HTTP answer behind it', async () => {
    const nothing = await bridgeTo(await freePort());
    expect(await answersHttp({ socketPath: nothing.socketPath }, '127.0.0.1', probe, never)).toBe(false);
    expect(nothing.connections).toBe(1);

    const seen: { method?: string; host?: string }[] = [];
    const service = createServer((req, res) => {
      seen.push({ method: req.method, host: req.headers.host });
      res.writeHead(500).end();
    });
    const bridge = await bridgeTo(await listening(service));
    expect(await answersHttp({ socketPath: bridge.socketPath }, '127.0.0.1', probe, never)).toBe(true);
    expect(seen).toEqual([{ method: 'HEAD', host: '127.0.0.1:8080' }]);
  });

  it('waits on a service that accepts and stays silent, until it is called off', async () => {
    let received!: () => void;
    const requested = new Promise<void>((resolve) => {
      received = resolve;
    });
    const held: Socket[] = [];
    const silent = createNetServer((socket) => {
      held.push(socket);
      socket.once('data', () => received());
    });
    closers.push(() => {
      for (const socket of held) socket.destroy();
    });
    const port = await listening(silent);
    const stop = new AbortController();
    let settled = false;
    const answer = answersHttp({ host: '127.0.0.1', port }, '127.0.0.1', probe, stop.signal).then((ok) => {
      settled = true;
      return ok;
    });
    await requested;
    expect(settled).toBe(false);
    stop.abort();
    expect(await answer).toBe(false);
  });

  it('speaks TLS without checking the certificate to an https port', async () => {
    const key = path.join(dir, 'key.pem');
    const cert = path.join(dir, 'cert.pem');
    await promisify(execFile)('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      '/CN=example.invalid',
      '-days',
      '1',
      '-keyout',
      key,
      '-out',
      cert,
    ]);
    const tlsService = createTlsServer({ key: await readFile(key), cert: await readFile(cert) }, (socket) => {
      socket.once('data', () => socket.end('HTTP/1.1 204 No Content\r\n\r\n'));
    });
    const bridge = await bridgeTo(await listening(tlsService));
    const https = { port: 8443, protocol: 'https' as const };
    expect(await answersHttp({ socketPath: bridge.socketPath }, '127.0.0.1', https, never)).toBe(true);
  });
});

describe('waitForAnswer', () => {
  it('names the loopback address whose endpoint answered', async () => {
    const nothing = await bridgeTo(await freePort());
    const service = await bridgeTo(await listening(createServer((_req, res) => res.end())));
    const reach = (host: '127.0.0.1' | '::1') => ({
      socketPath: (host === '::1' ? service : nothing).socketPath,
    });
    const answered = await waitForAnswer(reach, { ...probe, timeoutMs: 60_000, signal: never });
    expect(answered).toEqual({ host: '::1', endpoint: { socketPath: service.socketPath } });
  });

  it('gives up when called off, and answers nothing', async () => {
    const nothing = await bridgeTo(await freePort());
    const stop = new AbortController();
    const waiting = waitForAnswer(() => ({ socketPath: nothing.socketPath }), {
      ...probe,
      timeoutMs: 60_000,
      signal: stop.signal,
    });
    stop.abort();
    expect(await waiting).toBeNull();
  });
});
