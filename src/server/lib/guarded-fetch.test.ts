import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedFetch, resolveAllowed } from './guarded-fetch.js';
import { createNetworkPolicy } from './network-policy.js';

let server: Server;
let port: number;
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.url ?? '');
    if (req.url === '/redirect') return void res.writeHead(302, { location: '/secret' }).end();
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => res.writeHead(200, { 'x-echo': req.headers['x-test'] ?? '' }).end(`got ${body}`));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => server.close());

const strict = createNetworkPolicy({ serverOnLoopback: false });

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e as Error & { cause?: { code?: string; message?: string } },
  );
  return error?.cause ?? error;
}

describe('createGuardedFetch', () => {
  it('refuses loopback and private targets before any byte is sent, whatever the spelling', async () => {
    const guarded = createGuardedFetch(strict);
    const before = seen.length;
    for (const host of [
      '127.0.0.1',
      'localhost',
      '[::ffff:127.0.0.1]',
      '127.1',
      '2130706433',
      '0x7f.0.0.1',
    ]) {
      const cause = await refusal(guarded(`http://${host}:${port}/x`));
      expect(cause, host).toMatchObject({ code: 'ADDRESS_NOT_ALLOWED' });
    }
    // A name is refused under its own name: what it resolved to stays on the server.
    const failure = await guarded(`http://localhost:${port}/x`).catch((e: Error) => e);
    expect((failure as Error).message).toMatch(/^localhost is a local or private address/);
    const cause = (await refusal(guarded(`http://localhost:${port}/x`))) as Error;
    expect(cause.message).toMatch(/^localhost is/);
    expect(cause.message).not.toMatch(/127\.0\.0\.1|::1/);
    expect(seen.length).toBe(before);
  });

  it('connects to hosts the operator allowed, sending method, headers and body', async () => {
    const guarded = createGuardedFetch(
      createNetworkPolicy({ serverOnLoopback: false, allowedHosts: ['localhost'] }),
    );
    const res = await guarded(`http://localhost:${port}/echo`, {
      method: 'POST',
      headers: { 'x-test': 'yes' },
      body: 'hello',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-echo')).toBe('yes');
    expect(await res.text()).toBe('got hello');
  });

  it('checks the address on every new connection, not once: a name that turns private is refused', async () => {
    // Stands for a DNS answer that changes between two connections (rebinding).
    let turned = false;
    const guarded = createGuardedFetch({
      allows: (_host, address) => !turned || !address.startsWith('127.'),
    });
    const first = await guarded(`http://localhost:${port}/a`, { headers: { connection: 'close' } });
    expect(first.status).toBe(200);
    await first.text();
    turned = true;
    const cause = await refusal(guarded(`http://localhost:${port}/b`, { headers: { connection: 'close' } }));
    expect(cause).toMatchObject({ code: 'ADDRESS_NOT_ALLOWED' });
  });

  it('never follows a redirect', async () => {
    const guarded = createGuardedFetch(createNetworkPolicy({ serverOnLoopback: true }));
    const before = seen.length;
    const res = await guarded(`http://127.0.0.1:${port}/redirect`);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/secret');
    expect(seen.slice(before)).toEqual(['/redirect']);
  });

  it('stops when its signal fires', async () => {
    const guarded = createGuardedFetch(createNetworkPolicy({ serverOnLoopback: true }));
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(guarded(`http://127.0.0.1:${port}/`, { signal: controller.signal })).rejects.toThrow('stop');
  });
});

describe('resolveAllowed', () => {
  it('checks every address a name resolves to and names the host, not the address', async () => {
    await expect(resolveAllowed(strict, 'localhost')).rejects.toMatchObject({
      code: 'ADDRESS_NOT_ALLOWED',
      message: expect.stringContaining('localhost'),
    });
    await expect(resolveAllowed(strict, '[::1]')).rejects.toMatchObject({ code: 'ADDRESS_NOT_ALLOWED' });
    expect(await resolveAllowed(strict, '8.8.8.8')).toEqual([{ address: '8.8.8.8', family: 4 }]);
  });
});
