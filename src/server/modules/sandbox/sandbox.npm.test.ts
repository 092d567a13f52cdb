import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBwrap, findProgram } from './sandbox-mode.js';
import { type SandboxFixture, sandboxFixture, sandboxWithNetwork } from './sandbox-testing.js';

const PATH = process.env.PATH ?? '/usr/bin:/bin';
const bwrapPath = findBwrap(PATH);
const run = promisify(execFile);

/**
 * `npm ci` in the sandbox against a registry on the allow-list: a small registry of one package on
 * this machine's loopback, reached by the name `registry.test` (which the operator also lets reach a
 * private address, as an internal mirror would be set up).
 */
describe.skipIf(!bwrapPath || !findProgram('npm', PATH))('npm ci in the sandbox', () => {
  let fx: SandboxFixture;
  let registry: Server;
  let port: number;
  let tarball: Buffer;

  beforeAll(async () => {
    fx = await sandboxFixture();
    const pkg = path.join(fx.root, 'pkg', 'package');
    await mkdir(pkg, { recursive: true });
    await writeFile(
      path.join(pkg, 'package.json'),
      '{"name":"tiny-dep","version":"1.0.0","main":"index.js"}\n',
    );
    await writeFile(path.join(pkg, 'index.js'), 'module.exports = "tiny-dep works";\n');
    await run('tar', ['czf', path.join(fx.root, 'tiny-dep-1.0.0.tgz'), '-C', path.dirname(pkg), 'package']);
    tarball = await readFile(path.join(fx.root, 'tiny-dep-1.0.0.tgz'));
    registry = createServer((req, res) => {
      if (req.url?.endsWith('.tgz')) res.end(tarball);
      else res.writeHead(404).end('{}');
    });
    await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
    const address = registry.address();
    port = typeof address === 'object' && address ? address.port : 0;
    const integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
    const resolved = `http://registry.test:${port}/tiny-dep/-/tiny-dep-1.0.0.tgz`;
    await writeFile(
      path.join(fx.worktree, 'package.json'),
      JSON.stringify({ name: 'app', version: '1.0.0', dependencies: { 'tiny-dep': '1.0.0' } }),
    );
    await writeFile(
      path.join(fx.worktree, 'package-lock.json'),
      JSON.stringify({
        name: 'app',
        version: '1.0.0',
        lockfileVersion: 3,
        requires: true,
        packages: {
          '': { name: 'app', version: '1.0.0', dependencies: { 'tiny-dep': '1.0.0' } },
          'node_modules/tiny-dep': { version: '1.0.0', resolved, integrity },
        },
      }),
    );
  });
  afterAll(async () => {
    await new Promise((resolve) => registry?.close(resolve));
    await rm(fx.root, { recursive: true, force: true });
  });

  const sandboxWith = (hosts: string[]) =>
    sandboxWithNetwork(fx, { bwrapPath, path: PATH, hosts, loopbackNames: ['registry.test'] });
  const check =
    'npm ci --no-audit --no-fund --fetch-retries=0 --registry=http://registry.test:PORT/ && node -e "console.log(require(\'tiny-dep\'))"';

  /** `npm ci` in a sandbox whose operator lists `hosts`, from an empty node_modules. */
  async function npmCi(hosts: string[]) {
    await rm(path.join(fx.worktree, 'node_modules'), { recursive: true, force: true });
    const sandbox = sandboxWith(hosts);
    try {
      return await sandbox.run({
        command: ['sh', '-c', check.replace('PORT', String(port))],
        cwd: fx.worktree,
        timeoutMs: 120_000,
      });
    } finally {
      await sandbox.close();
    }
  }

  it('installs from a registry on the allow-list', async () => {
    const result = await npmCi(['registry.test']);
    expect(result.tail).toContain('tiny-dep works');
    expect(result.exitCode).toBe(0);
  }, 150_000);

  it('fails with a clear network message when there is no list', async () => {
    const result = await npmCi([]);
    expect(result.exitCode).not.toBe(0);
    expect(result.tail).not.toContain('tiny-dep works');
    expect(result.tail).toContain('this sandbox has no network');
  }, 150_000);

  it('names the refused host when the list does not admit it', async () => {
    const result = await npmCi(['registry.npmjs.org']);
    expect(result.exitCode).not.toBe(0);
    expect(result.tail).toContain(`registry.test:${port}`);
    expect(result.tail).toMatch(/not on the (sandbox's )?allow-list/);
  }, 150_000);
});
