import { spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, realpath, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { egressAddressPolicy } from './egress/egress-proxy.js';
import { parseAllowList } from './egress/host-allow-list.js';
import { createSandbox, type Sandbox } from './sandbox.js';

/** The pids whose command line contains `token` (a unique argument such as `sleep 987123`). */
export async function pidsRunning(token: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.split('\0').join(' ').includes(token)) found.push(Number(entry));
  }
  return found;
}

export interface SandboxFixture {
  root: string;
  dataDir: string;
  worktree: string;
  /** A file of another project's repository. */
  otherRepoFile: string;
  /** A file of the database (PGlite) directory. */
  databaseFile: string;
}

/**
 * A data dir laid out as the server keeps it: another project's repository, PGlite, a run's
 * worktree. It lies outside /tmp (in /var/tmp when there is one): the sandbox replaces /tmp, and a
 * data dir under it would be out of sight whether the sandbox hid it or not.
 */
export async function sandboxFixture(): Promise<SandboxFixture> {
  const base = (await stat('/var/tmp').catch(() => null))?.isDirectory() ? '/var/tmp' : homedir();
  const root = await realpath(await mkdtemp(path.join(base, 'autocoder-sandbox-test-')));
  // Open to others, as a data dir usually is: only the sandbox's hiding keeps its files out of
  // sight, so a test that reads them can fail (a sandbox of a root server runs as another uid).
  await chmod(root, 0o755);
  const dataDir = path.join(root, 'data');
  const otherRepo = path.join(dataDir, 'repos', 'other-project');
  const pglite = path.join(dataDir, 'pglite');
  const worktree = path.join(dataDir, 'worktrees', 'run-1');
  for (const dir of [otherRepo, pglite, worktree]) await mkdir(dir, { recursive: true });
  const otherRepoFile = path.join(otherRepo, 'secret.ts');
  const databaseFile = path.join(pglite, 'PG_VERSION');
  await writeFile(otherRepoFile, 'export const secret = "other project";\n');
  await writeFile(databaseFile, '17\n');
  await writeFile(path.join(worktree, 'package.json'), '{}\n');
  return { root, dataDir, worktree, otherRepoFile, databaseFile };
}

/**
 * True when `uid` may read the checkout the tests run from (its sources and node_modules): the
 * tests that start a server or a sandbox as a normal user need it. A checkout under a directory
 * only root may enter (a CI clone in /root, say) cannot be run from as another user.
 */
export function checkoutReadableBy(uid: number, checkout: string): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = spawnSync(
    'setpriv',
    [
      `--reuid=${uid}`,
      `--regid=${uid}`,
      '--clear-groups',
      '--',
      'sh',
      '-c',
      'test -r "$1/package.json" && test -x "$1/node_modules" && test -r "$1/node_modules/tsx/package.json"',
      'sh',
      checkout,
    ],
    { stdio: 'ignore' },
  );
  return probe.status === 0;
}

/**
 * A bubblewrap sandbox over the fixture whose operator lists `hosts`, where the names in
 * `loopbackNames` resolve to this machine's loopback (a registry mirror on it) and are also
 * allowed to reach it (AUTOCODER_ALLOWED_HOSTS) unless `privateHosts` says otherwise.
 */
export function sandboxWithNetwork(
  fx: SandboxFixture,
  options: {
    bwrapPath: string | null;
    path: string;
    hosts: readonly string[];
    loopbackNames: readonly string[];
    privateHosts?: readonly string[];
  },
): Sandbox {
  return createSandbox({
    mode: 'bwrap',
    bwrapPath: options.bwrapPath,
    path: options.path,
    hidden: [fx.dataDir],
    network: {
      allowList: parseAllowList(options.hosts).patterns,
      policy: egressAddressPolicy(options.privateHosts ?? options.loopbackNames),
      logger: { info: () => {} },
      lookup: async (host) =>
        options.loopbackNames.includes(host) ? [{ address: '127.0.0.1', family: 4 }] : [],
    },
  });
}
