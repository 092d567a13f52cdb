import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { httpRequest } from './http.js';

/** Child process groups and temp dirs still alive, so that any exit path can clean them up. */
const liveGroups = new Set<number>();
const liveDirs = new Set<string>();

export async function makeTempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  liveDirs.add(dir);
  return dir;
}

export async function removeTempDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  liveDirs.delete(dir);
}

/** Last resort (process 'exit'): kill what is left without waiting and remove the temp dirs. */
export function cleanupSync(): void {
  for (const pid of liveGroups) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  liveGroups.clear();
  for (const dir of liveDirs) rmSync(dir, { recursive: true, force: true });
  liveDirs.clear();
}

/** A free TCP port on 127.0.0.1 (asked of the OS, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

/**
 * Whether a process group still has a live (non-zombie) member. Reads /proc on Linux, because
 * orphaned zombies count for kill(-pgid, 0) until something reaps them; elsewhere asks kill.
 */
function groupAlive(pgid: number): boolean {
  if (existsSync('/proc/self/stat')) {
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      let stat: string;
      try {
        stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      } catch {
        continue; // exited meanwhile
      }
      const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(group) === pgid && state !== 'Z' && state !== 'X') return true;
    }
    return false;
  }
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface Spawned {
  child: ChildProcess;
  pid: number;
  /** The last 64 KiB of stdout + stderr. */
  output(): string;
  /** Resolves with the exit code when the direct child exits. */
  exited: Promise<number | null>;
  /** SIGTERM to the whole process group, waits until it is empty (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

/** Spawns a command in its own process group (detached), with its output captured. */
export function spawnGroup(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Spawned {
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not spawn ${command}`);
  liveGroups.add(pid);
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-65_536);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code) => resolve(code));
    child.on('error', () => resolve(null));
  });
  const stop = async (graceMs = 10_000) => {
    if (!liveGroups.has(pid)) return;
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {
      // already gone
    }
    const deadline = performance.now() + graceMs;
    while (groupAlive(pid) && performance.now() < deadline) await sleep(20);
    if (groupAlive(pid)) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
      const killDeadline = performance.now() + 5_000;
      while (groupAlive(pid) && performance.now() < killDeadline) await sleep(20);
    }
    liveGroups.delete(pid);
  };
  return { child, pid, output: () => output, exited, stop };
}

/** Stops every child group still running. */
/**
 * Runs a small node script (`node -e`) in its own process group and waits until it prints
 * `<tag> <port>`: the bench's stand-in servers (the TCP relay, the coordination floor), which
 * listen on a port of the system's choosing. Stopped again when it does not say so in 10 s.
 */
export async function spawnNodeListening(
  script: string,
  tag: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ port: number; spawned: Spawned }> {
  const spawned = spawnGroup(process.execPath, ['-e', script], cwd, env);
  const said = new RegExp(`${tag} (\\d+)`);
  const deadline = performance.now() + 10_000;
  for (;;) {
    const port = said.exec(spawned.output())?.[1];
    if (port) return { port: Number(port), spawned };
    if (performance.now() > deadline) {
      await spawned.stop();
      throw new Error(`${tag} did not start: ${spawned.output().slice(-200)}`);
    }
    await sleep(50);
  }
}

export async function stopAll(): Promise<void> {
  for (const pid of [...liveGroups]) {
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  const deadline = performance.now() + 10_000;
  while ([...liveGroups].some(groupAlive) && performance.now() < deadline) await sleep(20);
  cleanupSync();
}

/**
 * Polls GET /api/health on a fresh connection every `intervalMs` until it answers 200; returns the
 * ms from `since` to that answer. Fails if the process exits first or `timeoutMs` passes.
 */
export async function waitHealthy(
  port: number,
  spawned: Spawned,
  since: number,
  { intervalMs = 20, timeoutMs = 60_000 } = {},
): Promise<{ ms: number; body: string }> {
  let exitCode: number | null | undefined;
  void spawned.exited.then((code) => {
    exitCode = code;
  });
  for (;;) {
    const attempt = performance.now();
    try {
      const res = await httpRequest(false, port, 'GET', '/api/health', { timeoutMs: 2_000 });
      if (res.status === 200) return { ms: performance.now() - since, body: res.body.toString('utf8') };
    } catch {
      // not listening yet
    }
    if (exitCode !== undefined) {
      throw new Error(
        `the server exited (code ${exitCode}) before /api/health answered:\n${spawned.output()}`,
      );
    }
    if (performance.now() - since > timeoutMs) {
      throw new Error(`/api/health did not answer 200 within ${timeoutMs} ms:\n${spawned.output()}`);
    }
    await sleep(Math.max(0, intervalMs - (performance.now() - attempt)));
  }
}

function mtime(file: string): number {
  return existsSync(file) ? statSync(file).mtimeMs : 0;
}

function newest(entry: string): number {
  if (!existsSync(entry)) return 0;
  const stats = statSync(entry);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let latest = stats.mtimeMs;
  for (const name of readdirSync(entry)) latest = Math.max(latest, newest(path.join(entry, name)));
  return latest;
}

/** The same staleness test scripts/start.mjs makes: would `npm start` build first? */
export function buildIsStale(root: string): boolean {
  const sources = Math.max(
    newest(path.join(root, 'src')),
    newest(path.join(root, 'drizzle')),
    mtime(path.join(root, 'package.json')),
    mtime(path.join(root, 'vite.config.ts')),
    mtime(path.join(root, 'scripts', 'build.mjs')),
  );
  return (
    !existsSync(path.join(root, 'dist', 'server', 'main.js')) ||
    mtime(path.join(root, 'dist', '.build-stamp')) < sources
  );
}

/** The same test scripts/start.mjs makes: would `npm start` run npm ci first? */
export function installIsStale(root: string): boolean {
  const marker = path.join(root, 'node_modules', '.package-lock.json');
  return (
    !existsSync(marker) ||
    mtime(marker) <
      Math.max(mtime(path.join(root, 'package-lock.json')), mtime(path.join(root, 'package.json')))
  );
}

/** Runs `node scripts/build.mjs` when dist is missing or older than the sources. Returns true if it built. */
export async function ensureBuilt(root: string): Promise<boolean> {
  if (!buildIsStale(root)) return false;
  const build = spawnGroup(process.execPath, ['scripts/build.mjs'], root, process.env);
  const code = await build.exited;
  await build.stop();
  if (code !== 0) throw new Error(`node scripts/build.mjs failed (exit ${code}):\n${build.output()}`);
  return true;
}
