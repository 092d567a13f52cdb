import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeBridgeArgv, proxyEnv, socatBridgeArgv } from './bridge.js';
import { freePorts, startOriginServer, startTestProxy } from './egress-testing.js';

const SOCAT = '/usr/bin/socat';

let origin: Awaited<ReturnType<typeof startOriginServer>>;
let proxy: Awaited<ReturnType<typeof startTestProxy>>;

beforeAll(async () => {
  origin = await startOriginServer();
  proxy = await startTestProxy();
});
afterAll(async () => {
  origin.server.close();
  await proxy.stop();
});

/** What curl gets through the proxies with nothing but the sandbox's proxy variables. */
const CURLS = [
  'curl -sS http://allowed.test:$ORIGIN/plain; echo',
  'curl -sS --proxytunnel http://allowed.test:$ORIGIN/tunnel; echo',
  'curl -sS --proxy "$ALL_PROXY" http://allowed.test:$ORIGIN/socks; echo',
  "curl -sS -o /dev/null -w 'plain refused: %{http_code}' http://unlisted.test:$ORIGIN/; echo",
  'curl -sS --proxytunnel http://unlisted.test:$ORIGIN/ 2>&1; echo " (exit $?)"',
  'curl -sS --proxy "$ALL_PROXY" http://private.test:$ORIGIN/ 2>&1; echo " (exit $?)"',
].join('\n');

function run(argv: readonly string[], env: Record<string, string>) {
  const [file = '', ...args] = argv;
  const child = spawn(file, args, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env } });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  return { child, output: () => output };
}

async function exited(child: ChildProcess): Promise<number | null> {
  const [code] = (await once(child, 'exit')) as [number | null];
  return code;
}

function expectProxied(output: string) {
  expect(output).toContain('"url":"/plain"');
  expect(output).toContain('"url":"/tunnel"');
  expect(output).toContain('"url":"/socks"');
  expect(output).toContain('plain refused: 403');
  expect(output).toContain('CONNECT tunnel failed, response 403\n (exit 56)');
  // SOCKS reply 2: not allowed by the ruleset.
  expect(output).toContain("Can't complete SOCKS5 connection to private.test. (2)\n (exit 97)");
}

describe('the bridge inside the sandbox', () => {
  it('is one socat per listener, on the sandbox loopback, to the mounted socket', () => {
    expect(socatBridgeArgv({ port: 3128, socketPath: '/run/autocoder/http.sock' })).toEqual([
      'socat',
      'TCP4-LISTEN:3128,bind=127.0.0.1,fork,reuseaddr,max-children=128',
      'UNIX-CONNECT:/run/autocoder/http.sock',
    ]);
    expect(() => socatBridgeArgv({ port: 1080, socketPath: '/run/a,fork:b' })).toThrow(/socket path/);
  });

  it('sets the proxy variables for curl, git, pip, npm, pnpm and yarn', () => {
    expect(proxyEnv()).toMatchObject({
      http_proxy: 'http://127.0.0.1:3128',
      HTTPS_PROXY: 'http://127.0.0.1:3128',
      ALL_PROXY: 'socks5h://127.0.0.1:1080',
      NO_PROXY: 'localhost,127.0.0.1,::1',
      npm_config_https_proxy: 'http://127.0.0.1:3128',
    });
  });

  it('carries curl through the Node bridge, which starts the command once it listens', async () => {
    const [http = 0, socks = 0] = await freePorts(2);
    const argv = nodeBridgeArgv(
      process.execPath,
      [
        { port: http, socketPath: proxy.proxy.httpSocketPath },
        { port: socks, socketPath: proxy.proxy.socksSocketPath },
      ],
      ['sh', '-c', `${CURLS}\nexit 3`],
    );
    const bridge = run(argv, { ...proxyEnv({ http, socks }), ORIGIN: String(origin.port) });
    expect(await exited(bridge.child)).toBe(3);
    expectProxied(bridge.output());
  });

  it.skipIf(!existsSync(SOCAT))('carries curl through socat', async () => {
    const [http = 0, socks = 0] = await freePorts(2);
    const bridges = [
      run(socatBridgeArgv({ port: http, socketPath: proxy.proxy.httpSocketPath }, { socat: SOCAT }), {}),
      run(socatBridgeArgv({ port: socks, socketPath: proxy.proxy.socksSocketPath }, { socat: SOCAT }), {}),
    ];
    try {
      await Promise.all([listening(http), listening(socks)]);
      const curls = run(['sh', '-c', CURLS], { ...proxyEnv({ http, socks }), ORIGIN: String(origin.port) });
      expect(await exited(curls.child)).toBe(0);
      expectProxied(curls.output());
    } finally {
      for (const bridge of bridges) bridge.child.kill();
    }
  });
});

/** Resolves once something accepts on 127.0.0.1:`port` (socat says nothing when it is ready). */
async function listening(port: number): Promise<void> {
  for (;;) {
    const socket = net.connect(port, '127.0.0.1');
    const outcome = await new Promise<boolean>((resolve) => {
      socket.once('connect', () => resolve(true));
      socket.once('error', () => resolve(false));
    });
    socket.destroy();
    if (outcome) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
