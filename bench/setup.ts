// The setup part of `npm run bench`: what a run's worktree setup costs for a realistic JavaScript
// project (jest and webpack, about 330 packages in node_modules), in one run, as the app does it:
//   install — `npm ci` in the sandbox the server builds (bubblewrap, cgroup limits where there are
//             cgroups, egress through the allow-list `registry.npmjs.org`), through the check runner
//             as run-setup.ts calls it; a fresh worktree and a cold download cache each time (the
//             sandbox's /tmp is new per process): a project's first install, a cache miss;
//   restore — DepCache.restore of the first install's node_modules into a fresh worktree, as a
//             cache hit does it (`cp -a --reflink=auto`);
//   cp -r   — a plain `cp -r` of the same node_modules into a fresh directory, for reference;
//   check   — the check runner's `true` in a worktree holding node_modules and in one without: what a
//             step in a restored worktree pays before and after its command (the hand-over to the
//             sandbox's uid when the server is root, the walk for nested repositories).
// Restores and copies take turns, each round in the other order. Every figure is wall-clock time
// around the call, as a run waits for it. Skipped when bubblewrap or npm is missing or the registry
// does not answer.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { createLogger } from '../src/server/lib/logger.js';
import { runCheck } from '../src/server/modules/checks/check-runner.js';
import type { Sandbox } from '../src/server/modules/sandbox/sandbox.js';
import { DEFAULT_SANDBOX_USER, findBwrap, findProgram } from '../src/server/modules/sandbox/sandbox-mode.js';
import { setUpSandbox } from '../src/server/modules/sandbox/sandbox-setup.js';
import { DepCache } from '../src/server/modules/setup/dep-cache.js';
import { intEnv } from './lib/common.js';
import { percentile, round } from './lib/stats.js';

const run = promisify(execFile);
const REGISTRY = 'https://registry.npmjs.org/';
/** A test runner and a bundler, pinned: about 330 packages, 40 MB, 8,000 files and directories. */
const DEPENDENCIES = { jest: '29.7.0', webpack: '5.97.1' };
const PROJECT_ID = '00000000-0000-4000-8000-000000000001';
const KEY = 'b'.repeat(64);

export interface SetupBenchConfig {
  /** `npm ci` through the sandbox (each a cold install from the registry). */
  installs: number;
  /** Restores from the cache, and plain copies, each. */
  copies: number;
  /** The check runner's `true`, with and without node_modules, each. */
  checks: number;
}

export function setupBenchConfig(): SetupBenchConfig {
  return {
    installs: intEnv('BENCH_SETUP_INSTALLS', 3),
    copies: intEnv('BENCH_SETUP_COPIES', 7),
    checks: intEnv('BENCH_SETUP_CHECKS', 5),
  };
}

export interface SetupRow {
  way: string;
  runs: number;
  p50Ms: number;
  minMs: number;
  maxMs: number;
}

export type SetupResult =
  | { status: 'skipped'; reason: string }
  | {
      status: 'ok';
      dependencies: Record<string, string>;
      /** Packages npm installed ("added N packages"), and node_modules' size. */
      packages: number;
      bytes: number;
      entries: number;
      filesystem: string;
      reflinks: boolean;
      sandbox: string;
      uid: number | undefined;
      rows: SetupRow[];
      /** Restore p50 ÷ install p50. */
      restoreShare: number;
    };

function registryAnswers(): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(`${REGISTRY}jest`, { method: 'HEAD', timeout: 5_000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(false));
    req.end();
  });
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const began = performance.now();
  await work();
  return performance.now() - began;
}

function row(way: string, samples: number[]): SetupRow {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    way,
    runs: sorted.length,
    p50Ms: round(percentile(sorted, 50), 0),
    minMs: round(sorted[0] ?? Number.NaN, 0),
    maxMs: round(sorted.at(-1) ?? Number.NaN, 0),
  };
}

async function filesystemOf(dir: string): Promise<{ filesystem: string; reflinks: boolean }> {
  const filesystem = (
    await run('findmnt', ['-no', 'FSTYPE', '-T', dir]).catch(() => ({ stdout: '?' }))
  ).stdout
    .toString()
    .trim();
  const probe = path.join(dir, 'reflink-probe');
  await writeFile(probe, 'x');
  const reflinks = await run('cp', ['--reflink=always', probe, `${probe}-copy`]).then(
    () => true,
    () => false,
  );
  await rm(probe, { force: true });
  await rm(`${probe}-copy`, { force: true });
  return { filesystem, reflinks };
}

export async function benchSetup(config: SetupBenchConfig): Promise<SetupResult> {
  const PATH = process.env.PATH ?? '/usr/bin:/bin';
  if (!findBwrap(PATH)) return { status: 'skipped', reason: 'bubblewrap is not installed' };
  if (!findProgram('npm', PATH)) return { status: 'skipped', reason: 'npm is not on PATH' };
  if (!(await registryAnswers())) return { status: 'skipped', reason: `${REGISTRY} did not answer` };

  // Outside /tmp: the sandbox has a /tmp of its own, and a data dir under it would be out of sight.
  const root = await mkdtemp('/var/tmp/autocoder-bench-setup-');
  const dataDir = path.join(root, 'data');
  const project = path.join(root, 'project');
  await mkdir(project, { recursive: true });
  const packageJson = `${JSON.stringify({ name: 'bench-app', version: '1.0.0', private: true, devDependencies: DEPENDENCIES }, null, 2)}\n`;
  await writeFile(path.join(project, 'package.json'), packageJson);
  // The lockfile, once, as a developer makes it (metadata only; the host's npm cache, not the sandbox's).
  await run(
    'npm',
    [
      'install',
      '--package-lock-only',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      `--registry=${REGISTRY}`,
    ],
    { cwd: project, timeout: 300_000 },
  );
  const lockfile = await readFile(path.join(project, 'package-lock.json'), 'utf8');

  let sandbox: Sandbox | null = null;
  let counter = 0;
  const worktree = async () => {
    counter += 1;
    const dir = path.join(dataDir, 'worktrees', `run-${counter}`);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'package.json'), packageJson);
    await writeFile(path.join(dir, 'package-lock.json'), lockfile);
    return dir;
  };
  try {
    // As main.ts builds the server's sandbox, with AUTOCODER_SANDBOX_ALLOWED_HOSTS=registry.npmjs.org.
    sandbox = await setUpSandbox(
      {
        requested: undefined,
        host: '127.0.0.1',
        path: PATH,
        dataDir,
        user: DEFAULT_SANDBOX_USER,
        tmpBytes: 1024 * 1024 * 1024,
        maxGrowthBytes: 4096 * 1024 * 1024,
        allowedHosts: ['registry.npmjs.org'],
        privateHosts: [],
        limitsMode: undefined,
        limits: { memoryMb: undefined, pids: undefined, cpus: undefined },
      },
      createLogger('warn'),
    );
    const box = sandbox;
    const check = async (dir: string, command: string, onOutput?: (text: string) => void) => {
      const result = await runCheck({
        sandbox: box,
        runId: 'bench',
        worktree: dir,
        check: { command, timeoutSeconds: 600, allowedHosts: null },
        now: Date.now,
        emit: (event) => {
          if (event.type === 'check-log') onOutput?.(event.data.chunk);
        },
      });
      if (!result.passed) throw new Error(`\`${command}\` failed (exit ${result.exitCode}): ${result.tail}`);
    };
    const cache = new DepCache({
      root: path.join(dataDir, 'cache', 'deps'),
      projectMaxBytes: 2 * 1024 ** 3,
      totalMaxBytes: 10 * 1024 ** 3,
    });

    // (a) installs: the first one's node_modules goes into the cache, as a miss's does.
    const installs: number[] = [];
    let packages = 0;
    let installed = '';
    for (let i = 0; i < config.installs; i++) {
      const dir = await worktree();
      let output = '';
      installs.push(await timed(() => check(dir, 'npm ci --no-audit --no-fund', (text) => (output += text))));
      packages = Number(/added (\d+) packages/.exec(output)?.[1] ?? 0);
      console.log(
        `  npm ci ${i + 1}/${config.installs}: ${Math.round(installs.at(-1) ?? 0)} ms, ${packages} packages`,
      );
      if (i === 0) {
        await cache.save(PROJECT_ID, KEY, dir, 'npm ci', ['node_modules']);
        installed = dir;
      }
    }
    const nodeModules = path.join(installed, 'node_modules');
    const bytes = Number.parseInt((await run('du', ['-sb', nodeModules])).stdout.toString(), 10);
    const entries = (await run('find', [nodeModules])).stdout.toString().trim().split('\n').length;

    // (b) and (c), taking turns. Every copy stays until the end: ext4 allocates inodes slowly for
    // about 30 s after many were freed (it skips recently deleted ones, `recently_deleted()`), so a
    // copy right after removing the previous one measures that instead; (b2) shows it on purpose.
    const restores: number[] = [];
    const copies: number[] = [];
    const churned: number[] = [];
    const restoreInto = async (dir: string) =>
      timed(async () => {
        if (!(await cache.restore(PROJECT_ID, KEY, dir))) throw new Error('the cache had no entry');
      });
    const restoreOnce = async () => restores.push(await restoreInto(await worktree()));
    const copyOnce = async () => {
      const dir = path.join(root, `copy-${counter++}`);
      await mkdir(dir);
      copies.push(await timed(() => run('cp', ['-r', nodeModules, `${dir}/`])));
    };
    await restoreInto(await worktree()); // warm-up, not counted
    for (let i = 0; i < config.copies; i++) {
      for (const way of i % 2 === 0 ? [restoreOnce, copyOnce] : [copyOnce, restoreOnce]) await way();
    }
    // (b2) as on a busy server: the previous run's worktree, node_modules and all, removed just before.
    for (let i = 0; i < config.copies; i++) {
      const previous = await worktree();
      await restoreInto(previous);
      await rm(previous, { recursive: true, force: true });
      churned.push(await restoreInto(await worktree()));
    }
    console.log(`  ${config.copies} restores and copies done`);

    // (d) a step's own cost in a restored worktree against an empty one.
    const empty = await worktree();
    const withModules: number[] = [];
    const without: number[] = [];
    for (let i = 0; i < config.checks; i++) {
      withModules.push(await timed(() => check(installed, 'true')));
      without.push(await timed(() => check(empty, 'true')));
    }

    const rows = [
      row('(a) npm ci through the sandbox (cold download cache)', installs),
      row('(b) restore from the dependency cache (cp -a --reflink=auto)', restores),
      row('(b2) the same, right after removing a worktree with node_modules', churned),
      row('(c) plain cp -r of node_modules', copies),
      row('(d) check `true` in a worktree with node_modules', withModules),
      row('(d) check `true` in a worktree without', without),
    ];
    const { filesystem, reflinks } = await filesystemOf(root);
    const installP50 = rows[0]?.p50Ms ?? Number.NaN;
    const restoreP50 = rows[1]?.p50Ms ?? Number.NaN;
    return {
      status: 'ok',
      dependencies: DEPENDENCIES,
      packages,
      bytes,
      entries,
      filesystem,
      reflinks,
      sandbox: `${box.mode}, sandbox uid ${box.summary.uid}, limits: ${box.summary.limits}`,
      uid: process.getuid?.(),
      rows,
      restoreShare: round(restoreP50 / installP50, 3),
    };
  } finally {
    await sandbox?.close();
    await rm(root, { recursive: true, force: true });
  }
}
