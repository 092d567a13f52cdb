// The sandbox part of `npm run bench`: what starting a sandboxed process costs, as a check or a
// service start meets it — `sandbox.run(['true'])` from the server's process, start to exit.
// Three configurations take turns, so that the machine's load falls on all of them alike:
//   before — bubblewrap as AutoCoder started it until issue 23 (every namespace but the network,
//            the host's network shared, capabilities kept when root, no seccomp, no cgroup);
//   after  — the sandbox as it is now (own network, seccomp, no capability, an unprivileged uid
//            when root, a size-capped tmpfs /tmp) without limits;
//   after + cgroup — the same in a cgroup of its own with memory, process and CPU limits.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { type AvailableCgroups, probeCgroups } from '../src/server/modules/sandbox/cgroups-probe.js';
import { createSandbox, type Sandbox } from '../src/server/modules/sandbox/sandbox.js';
import { findBwrap } from '../src/server/modules/sandbox/sandbox-mode.js';
import type { Aim } from './lib/common.js';
import { table } from './lib/format.js';
import { percentile, round } from './lib/stats.js';

export interface SandboxConfig {
  /** Starts timed per configuration (after a warm-up of 20). */
  runs: number;
}

export function sandboxBenchConfig(): SandboxConfig {
  return { runs: Number(process.env.BENCH_SANDBOX_RUNS ?? 300) };
}

export interface SandboxStartRow {
  config: string;
  runs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export type SandboxResult =
  | { status: 'skipped'; reason: string }
  | { status: 'ok'; rows: SandboxStartRow[]; limits: string | null };

/** bubblewrap's arguments at e0135f7 (bwrap-args.ts then), for the "before" row. */
function beforeArgs(worktree: string, privateTmp: string, dataDir: string): string[] {
  return [
    '--die-with-parent',
    '--new-session',
    '--unshare-all',
    '--share-net',
    '--unshare-pid',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--bind',
    privateTmp,
    '/tmp',
    '--tmpfs',
    dataDir,
    '--bind',
    worktree,
    worktree,
    '--chdir',
    worktree,
    '--',
    'true',
  ];
}

/** The old way, spawned as sandbox.ts spawned it then (detached, piped output, a private /tmp made per run). */
async function startBefore(bwrap: string, worktree: string, dataDir: string): Promise<void> {
  const privateTmp = await mkdtemp(path.join(tmpdir(), 'autocoder-bench-before-'));
  await new Promise<void>((resolve, reject) => {
    const child = spawn(bwrap, beforeArgs(worktree, privateTmp, dataDir), {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.resume();
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`bwrap exited with ${code}`))));
  });
  await rm(privateTmp, { recursive: true, force: true });
}

async function timeOnce(start: () => Promise<unknown>): Promise<number> {
  const began = performance.now();
  await start();
  return performance.now() - began;
}

function row(config: string, samples: number[]): SandboxStartRow {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    config,
    runs: sorted.length,
    p50Ms: round(percentile(sorted, 50), 1),
    p99Ms: round(percentile(sorted, 99), 1),
    maxMs: round(sorted.at(-1) ?? 0, 1),
  };
}

export async function benchSandbox(config: SandboxConfig): Promise<SandboxResult> {
  const bwrap = findBwrap(process.env.PATH ?? '');
  if (!bwrap) return { status: 'skipped', reason: 'bubblewrap is not installed' };
  const root = await mkdtemp(path.join('/var/tmp', 'autocoder-bench-sandbox-'));
  const dataDir = path.join(root, 'data');
  const worktree = path.join(dataDir, 'worktrees', 'run');
  await mkdir(worktree, { recursive: true });
  const probe = await probeCgroups();
  const cgroups = probe.available ? (probe as AvailableCgroups) : null;
  const PATH = process.env.PATH ?? '/usr/bin:/bin';
  const after = createSandbox({ mode: 'bwrap', bwrapPath: bwrap, path: PATH, hidden: [dataDir] });
  const limited: Sandbox | null = cgroups
    ? createSandbox({
        mode: 'bwrap',
        bwrapPath: bwrap,
        path: PATH,
        hidden: [dataDir],
        limits: { cgroups, limits: { memoryMb: 2048, pids: 512, cpus: 2 } },
      })
    : null;
  const runTrue = (sandbox: Sandbox) => async () => {
    const result = await sandbox.run({ command: ['true'], cwd: worktree, timeoutMs: 30_000 });
    if (result.exitCode !== 0) throw new Error(`true exited with ${result.exitCode}: ${result.tail}`);
  };
  const ways: Array<[string, () => Promise<unknown>]> = [
    ['before (e0135f7: shared network, no seccomp)', () => startBefore(bwrap, worktree, dataDir)],
    ['after (own network, seccomp, no capability)', runTrue(after)],
    ...(limited ? [['after + cgroup limits', runTrue(limited)] as [string, () => Promise<unknown>]] : []),
  ];
  const samples = ways.map(() => [] as number[]);
  try {
    for (let i = 0; i < 20; i++) for (const [, start] of ways) await start();
    for (let i = 0; i < config.runs; i++) {
      // Each round in another order: what one way leaves behind falls on the next alike.
      for (let k = 0; k < ways.length; k++) {
        const index = (i + k) % ways.length;
        const way = ways[index];
        if (way) samples[index]?.push(await timeOnce(way[1]));
      }
    }
  } finally {
    await after.close();
    await limited?.close();
    await rm(root, { recursive: true, force: true });
  }
  return {
    status: 'ok',
    rows: ways.map(([name], index) => row(name, samples[index] ?? [])),
    limits: cgroups ? `cgroup v${cgroups.version}` : `none (${probe.available ? '' : probe.reason})`,
  };
}

export function sandboxAims(result: SandboxResult): Aim[] {
  if (result.status !== 'ok') return [];
  const worst = result.rows.filter((r) => r.config.startsWith('after')).map((r) => r.p99Ms);
  const actual = worst.length ? Math.max(...worst) : null;
  return [
    {
      name: 'sandbox start (`true`), p99, with isolation and limits',
      target: '< 100 ms',
      actual,
      unit: 'ms',
      met: actual === null ? null : actual < 100,
      part: 'sandbox',
    },
  ];
}

export function printSandbox(result: SandboxResult): void {
  if (result.status !== 'ok') {
    console.log(`skipped: ${result.reason}`);
    return;
  }
  console.log(`limits: ${result.limits}; process uid ${process.getuid?.()}`);
  console.log(
    table(
      ['configuration', 'runs', 'p50 ms', 'p99 ms', 'max ms'],
      result.rows.map((r) => [r.config, String(r.runs), String(r.p50Ms), String(r.p99Ms), String(r.maxMs)]),
    ),
  );
}
