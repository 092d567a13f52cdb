// The engines part's view of the engine processes, from /proc: when a sandboxed engine started and
// ended, and which processes its sandbox holds (as sandbox-testing.ts `pidsRunning` finds them).
import { readdirSync, readFileSync } from 'node:fs';
import { CLOCK_TICKS_PER_SECOND } from './lib/common.js';

/** One engine process's sandbox: every process whose command line names the engine's binary. */
export interface EngineSession {
  /** Wall clock (Date.now() scale) of the earliest start among its processes, from /proc starttime. */
  spawnAt: number;
  /** Date.now() of the first scan that saw it. */
  firstSeenAt: number;
  /** Date.now() of the first scan that found none of its processes left; null while it runs. */
  goneAt: number | null;
  pids: Set<number>;
}

const PID = /^\d+$/;

/** The command line of a process, arguments joined by spaces; '' once it is gone. */
export function cmdlineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ');
  } catch {
    return '';
  }
}

/** Parent pid and start time (clock ticks since boot) from /proc/<pid>/stat; null once gone. */
function statOf(pid: number): { ppid: number; startTicks: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the command: state(0) ppid(1) … starttime is field 22 of the line, index 19 here.
    const ppid = Number(fields[1]);
    const startTicks = Number(fields[19]);
    return Number.isFinite(ppid) && Number.isFinite(startTicks) ? { ppid, startTicks } : null;
  } catch {
    return null;
  }
}

/** Date.now() at boot, from /proc/uptime (10 ms resolution): turns a process's starttime into wall time. */
function bootedAt(): number {
  const uptime = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
  return Date.now() - uptime * 1000;
}

/** Pids whose command line contains `token` (the engine's binary path), as pidsRunning does. */
export function pidsRunning(token: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!PID.test(entry)) continue;
    if (cmdlineOf(Number(entry)).includes(token)) found.push(Number(entry));
  }
  return found;
}

/** Every descendant of `roots` (and the roots), from a ppid map of all processes. */
export function treeOf(roots: readonly number[]): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!PID.test(entry)) continue;
    const stat = statOf(Number(entry));
    if (!stat) continue;
    const list = children.get(stat.ppid) ?? [];
    list.push(Number(entry));
    children.set(stat.ppid, list);
  }
  const seen = new Set<number>();
  const queue = [...roots];
  while (queue.length > 0) {
    const pid = queue.pop() as number;
    if (seen.has(pid)) continue;
    seen.add(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return [...seen];
}

/** Whether a process still exists (a zombie counts as gone: it runs nothing). */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/**
 * Scans /proc every `intervalMs` for processes naming `token` and groups them into sessions: a
 * session starts when one appears while none runs and ends at the first scan that finds none.
 * Its start is the earliest /proc starttime of its processes (10 ms ticks), its end up to one
 * interval (plus a scan, ~1–2 ms) late.
 */
export class EngineWatch {
  readonly sessions: EngineSession[] = [];
  /** CPU ms the scans took in this process, and how many there were. */
  scanCpuMs = 0;
  scans = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly boot = bootedAt();

  constructor(
    private readonly token: string,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => this.scan(), this.intervalMs);
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.scan();
  }

  /** The session running now, if any. */
  get current(): EngineSession | undefined {
    const last = this.sessions.at(-1);
    return last && last.goneAt === null ? last : undefined;
  }

  scan(): void {
    const cpu = process.cpuUsage();
    const now = Date.now();
    const pids = pidsRunning(this.token);
    let session = this.current;
    if (pids.length === 0) {
      if (session) session.goneAt = now;
    } else {
      if (!session) {
        session = { spawnAt: now, firstSeenAt: now, goneAt: null, pids: new Set() };
        this.sessions.push(session);
      }
      for (const pid of pids) {
        if (session.pids.has(pid)) continue;
        session.pids.add(pid);
        const stat = statOf(pid);
        if (stat) {
          const startedAt = this.boot + (stat.startTicks * 1000) / CLOCK_TICKS_PER_SECOND;
          session.spawnAt = Math.min(session.spawnAt, startedAt);
        }
      }
    }
    const used = process.cpuUsage(cpu);
    this.scanCpuMs += (used.user + used.system) / 1000;
    this.scans++;
  }
}
