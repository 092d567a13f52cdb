// What the benchmark parts share: environment knobs, the child server's environment and log, /proc figures, aims.
import { readdirSync, readFileSync } from 'node:fs';

/** A whole number from the environment, or `fallback` when unset. */
export function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number, got "${raw}"`);
  return value;
}

/**
 * The environment every child starts from: ours without the app's own settings (a DATABASE_URL,
 * AUTOCODER_*, model provider keys), so that only what the bench sets applies.
 */
export function baseEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(DATABASE_URL|TRUST_PROXY|AUTOCODER_|ANTHROPIC_|OPENAI_)/.test(name)) delete env[name];
  }
  return env;
}

/** The server reads it for its per-address login/register limit; the bench lifts that limit (bench/README.md). */
export const RATE_LIMIT_ENV = 'AUTOCODER_RATE_LIMIT_AUTH_PER_MINUTE';

/** The first line of an error, for a one-line report. */
export const firstLine = (error: unknown) =>
  (error instanceof Error ? error.message : String(error)).split('\n')[0]?.slice(0, 300) ?? '';

/** The server's JSON log lines grouped by level, message and error message (first line). */
export function summarizeLog(output: string): { line: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const raw of output.split('\n')) {
    if (!raw.trim()) continue;
    let line = raw.trim().slice(0, 200);
    try {
      const entry = JSON.parse(raw) as { level?: string; msg?: string; error?: { message?: string } };
      const detail = entry.error?.message?.split('\n')[0];
      line = `${entry.level ?? '?'} ${entry.msg ?? ''}${detail ? `: ${detail}` : ''}`.slice(0, 200);
    } catch {
      // not a JSON line: keep its start
    }
    counts.set(line, (counts.get(line) ?? 0) + 1);
  }
  return [...counts].map(([line, count]) => ({ line, count })).sort((a, b) => b.count - a.count);
}

export const CLOCK_TICKS_PER_SECOND = 100;

/** utime + stime of a process in ms, from /proc (null elsewhere or when it is gone). */
export function processCpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start at ") ".
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    if (!Number.isFinite(utime) || !Number.isFinite(stime)) return null;
    return ((utime + stime) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** Resident memory of a process in bytes, from /proc/<pid>/status VmRSS (null elsewhere or when gone). */
export function processRssBytes(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** One target the bench checks, as printed at the end and written to the JSON. */
export interface Aim {
  name: string;
  target: string;
  actual: number | null;
  /** 'ms' or what `actual` counts, e.g. 'writes per 1,000 tokens'. */
  unit: string;
  met: boolean | null;
  /** The bench part that measures it. */
  part?:
    | 'foundation'
    | 'pipeline'
    | 'sse-flood'
    | 'board'
    | 'diff'
    | 'graph'
    | 'coordination'
    | 'services'
    | 'sandbox'
    | 'agent-tools'
    | 'setup'
    | 'review-page';
}

/**
 * CPU time of a process's main thread and the time it waited for a CPU while runnable, in ms
 * (Linux /proc/<pid>/schedstat; null elsewhere). The wait is what other work on the machine costs it.
 */
export function schedStatMs(pid: number | 'self'): { runMs: number; waitMs: number } | null {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/schedstat`, 'utf8').trim().split(/\s+/).map(Number);
    if (run === undefined || wait === undefined || !Number.isFinite(run) || !Number.isFinite(wait))
      return null;
    return { runMs: run / 1e6, waitMs: wait / 1e6 };
  } catch {
    return null;
  }
}

/** CPU of a process's children in ms (reaped ones, and live ones with theirs): for the server, its git commands. */
export function childrenCpuMs(pid: number): number | null {
  const own = statFields(pid);
  if (!own) return null;
  // Ended children that were waited for (cutime, cstime), plus the live ones with everything they
  // waited for: git runs under the server's long-lived command launcher (src/server/lib/spawner.ts).
  let ticks = own.cutime + own.cstime;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const child = statFields(Number(entry));
    if (child?.ppid === pid) ticks += child.utime + child.stime + child.cutime + child.cstime;
  }
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}

function statFields(pid: number) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    const [ppid, utime, stime, cutime, cstime] = [fields[1], fields[11], fields[12], fields[13], fields[14]];
    if ([ppid, utime, stime, cutime, cstime].some((value) => !Number.isFinite(value))) return null;
    return {
      ppid: ppid as number,
      utime: utime as number,
      stime: stime as number,
      cutime: cutime as number,
      cstime: cstime as number,
    };
  } catch {
    return null;
  }
}

/** `BENCH_CPU_PROF=<dir>`: node flags that make a server write a V8 CPU profile there when it stops. */
export function cpuProfileArgs(): string[] {
  const dir = process.env.BENCH_CPU_PROF;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [];
}
