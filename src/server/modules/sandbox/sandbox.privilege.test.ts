import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from './sandbox.js';
import { expectContained } from './sandbox-expect.js';
import { DEFAULT_SANDBOX_USER, findBwrap, findProgram } from './sandbox-mode.js';
import { probeFacts, probeScript } from './sandbox-probe.js';
import {
  checkoutReadableBy,
  type SandboxFixture,
  sandboxFixture,
  sandboxWithNetwork,
} from './sandbox-testing.js';

const PATH = process.env.PATH ?? '/usr/bin:/bin';
const bwrapPath = findBwrap(PATH);
const run = promisify(execFile);
const root = process.getuid?.() === 0;
const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../../../..');
/** A normal user (nobody) can run from this checkout: not when it lies under a directory only root may enter. */
const nobodyCanRun = root && checkoutReadableBy(65534, repoRoot);
if (root && !nobodyCanRun) {
  console.warn(`SKIPPED: the normal-user sandbox tests: uid 65534 cannot read ${repoRoot}`);
}

describe.skipIf(!bwrapPath)('the sandbox holds no privilege and no network', () => {
  let fx: SandboxFixture;
  let sandbox: Sandbox;
  let listener: Server;
  let hostPort: number;

  beforeAll(async () => {
    fx = await sandboxFixture();
    sandbox = createSandbox({ mode: 'bwrap', bwrapPath, path: PATH, hidden: [fx.dataDir] });
    listener = createServer((socket) => {
      socket.on('error', () => {}); // the probe hangs up at once
      socket.end('host service\n');
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const address = listener.address();
    hostPort = typeof address === 'object' && address ? address.port : 0;
  });
  afterAll(async () => {
    await sandbox?.close();
    await new Promise((resolve) => listener?.close(resolve));
    await rm(fx.root, { recursive: true, force: true });
  });

  it('a host process can reach the listener the probe tries (the network check can fail)', async () => {
    const local = createSandbox({ mode: 'host', bwrapPath: null, path: PATH, hidden: [] });
    const result = await local.run({
      command: ['sh', '-c', probeScript({ hostPort, mountSource: fx.root })],
      cwd: fx.worktree,
      timeoutMs: 60_000,
    });
    expect(probeFacts(result.tail).net).toBe('reached');
  });

  it(`runs with no capability, under seccomp, unable to mount, unshare or reach the host${root ? ', as its own uid' : ''}`, async () => {
    const result = await sandbox.run({
      command: ['sh', '-c', probeScript({ hostPort, mountSource: fx.root })],
      cwd: fx.worktree,
      timeoutMs: 60_000,
    });
    const facts = probeFacts(result.tail);
    expectContained(facts);
    if (root) {
      // A root server's sandbox runs as an unprivileged uid of its own, not as root.
      expect(facts.uid).toBe(String(DEFAULT_SANDBOX_USER.uid));
      expect(facts.gid).toBe(String(DEFAULT_SANDBOX_USER.gid));
    } else {
      expect(facts.uid).toBe(String(process.getuid?.()));
    }
  });

  it.skipIf(!nobodyCanRun)(
    'holds the same for a server started as a normal user',
    async () => {
      const { stdout } = await run(
        'setpriv',
        [
          '--reuid=65534',
          '--regid=65534',
          '--clear-groups',
          '--',
          process.execPath,
          '--import',
          'tsx',
          path.join(here, 'sandbox-probe.main.ts'),
          String(hostPort),
        ],
        { cwd: repoRoot, env: { PATH, HOME: '/tmp', TMPDIR: '/tmp' }, timeout: 120_000 },
      );
      const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { tail: string };
      const facts = probeFacts(result.tail);
      expectContained(facts);
      expect(facts.uid).toBe('65534');
    },
    120_000,
  );

  it('cannot write into the worktree of a root server unless handed over, and is handed it', async () => {
    const result = await sandbox.run({
      command: ['sh', '-c', 'echo made > made.txt && echo wrote'],
      cwd: fx.worktree,
      timeoutMs: 20_000,
    });
    expect(result.tail).toContain('wrote');
  });
});

describe.skipIf(!bwrapPath)('the sandbox reaches the network only through the allow-list', () => {
  let fx: SandboxFixture;
  let origin: Server;
  let originPort: number;

  beforeAll(async () => {
    fx = await sandboxFixture();
    origin = createHttpServer((_req, res) => res.end('hello from the registry\n'));
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
    const address = origin.address();
    originPort = typeof address === 'object' && address ? address.port : 0;
  });
  afterAll(async () => {
    await new Promise((resolve) => origin?.close(resolve));
    await rm(fx.root, { recursive: true, force: true });
  });

  /** A sandbox whose operator lists `hosts`; `registry.test` may reach loopback (AUTOCODER_ALLOWED_HOSTS). */
  function withList(hosts: string[], privateHosts?: string[]) {
    return sandboxWithNetwork(fx, {
      bwrapPath,
      path: PATH,
      hosts,
      loopbackNames: ['registry.test', 'other.test'],
      ...(privateHosts ? { privateHosts } : {}),
    });
  }
  const fetchInside = (sandbox: Sandbox, url: string) =>
    sandbox.run({
      command: ['sh', '-c', `curl -sS -m 20 ${url} 2>&1; echo "curl=$?"`],
      cwd: fx.worktree,
      timeoutMs: 60_000,
    });

  const hasCurl = findProgram('curl', PATH) !== null;

  it.skipIf(!hasCurl)('reaches a listed host through the proxy, and nothing else', async () => {
    const sandbox = withList(['registry.test']);
    try {
      const listed = await fetchInside(sandbox, `http://registry.test:${originPort}/`);
      expect(listed.tail).toContain('hello from the registry');
      // The same server by another name is not on the list, nor is the host's loopback address.
      for (const url of [`http://other.test:${originPort}/`, `http://127.0.0.1:${originPort}/`]) {
        const unlisted = await fetchInside(sandbox, url);
        expect(unlisted.tail).not.toContain('hello from the registry');
      }
      // Through CONNECT (https, or any TCP over the HTTP proxy) the refusal is the proxy's 403.
      const tunnel = await fetchInside(sandbox, `-p http://other.test:${originPort}/`);
      expect(tunnel.tail).toMatch(/403/);
    } finally {
      await sandbox.close();
    }
  });

  it.skipIf(!hasCurl)('refuses a listed host that resolves to a private address', async () => {
    const sandbox = withList(['registry.test'], []);
    try {
      const result = await fetchInside(sandbox, `-p http://registry.test:${originPort}/`);
      expect(result.tail).not.toContain('hello from the registry');
      expect(result.tail).toMatch(/403/);
    } finally {
      await sandbox.close();
    }
  });

  it.skipIf(!findProgram('curl', PATH))('has no network at all without a list', async () => {
    const sandbox = withList([]);
    try {
      const result = await fetchInside(sandbox, `http://registry.test:${originPort}/`);
      expect(result.tail).not.toContain('hello from the registry');
      expect(result.tail).not.toContain('curl=0');
    } finally {
      await sandbox.close();
    }
  });
});

describe.skipIf(!bwrapPath || !findProgram('socat', PATH))("a sandbox's service", () => {
  let fx: SandboxFixture;
  let sandbox: Sandbox;
  beforeAll(async () => {
    fx = await sandboxFixture();
    sandbox = createSandbox({ mode: 'bwrap', bwrapPath, path: PATH, hidden: [fx.dataDir] });
  });
  afterAll(async () => {
    await sandbox?.close();
    await rm(fx.root, { recursive: true, force: true });
  });

  it('is reached by the server through its endpoint, and by no other sandbox', async () => {
    const port = 40_000 + Math.floor(Math.random() * 20_000);
    const service = await sandbox.spawn({
      command: [
        process.execPath,
        '-e',
        `require('http').createServer((q, r) => r.end('service of user A')).listen(${port}, '127.0.0.1', () => console.log('listening'))`,
      ],
      cwd: fx.worktree,
      expose: [port],
    });
    try {
      await new Promise<void>((resolve) => {
        service.child.stdout?.on('data', (chunk: Buffer) => {
          if (String(chunk).includes('listening')) resolve();
        });
      });
      const endpoint = service.endpoint(port, '127.0.0.1');
      expect('socketPath' in endpoint).toBe(true);
      const answer = await new Promise<string>((resolve, reject) => {
        const req = httpRequest({ ...endpoint, path: '/' }, (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => {
            body += String(chunk);
          });
          res.on('end', () => resolve(body));
        });
        req.on('error', reject);
        req.end();
      });
      expect(answer).toBe('service of user A');
      // Another user's sandbox, on the same port of its own loopback, finds nothing there.
      const other = await sandbox.run({
        command: [
          process.execPath,
          '-e',
          `require('net').connect(${port}, '127.0.0.1').on('connect', () => console.log('net=reached')).on('error', (e) => console.log('net=' + e.code))`,
        ],
        cwd: fx.worktree,
        timeoutMs: 30_000,
      });
      expect(probeFacts(other.tail).net).toBe('ECONNREFUSED');
    } finally {
      await service.stop();
    }
  });
});
