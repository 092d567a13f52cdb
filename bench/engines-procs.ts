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

/** A process first seen this recently has its command line read again: it may not have exec'd yet. */
const YOUNG_MS = 1_000;

/**
 * Scans /proc every `intervalMs` for processes naming `token` and groups them into sessions: a
 * session starts when one appears while none runs and ends at the first scan that finds none.
 * Its start is the earliest /proc starttime of its processes (10 ms ticks), its end up to one
 * interval (plus a scan) late. A process seen not naming it for a second is not read again (it
 * would have to exec the engine to become one), which keeps a scan to a directory listing and a
 * few reads.
 */
export class EngineWatch {
  readonly sessions: EngineSession[] = [];
  /** CPU ms the scans took in this process, and how many there were. */
  scanCpuMs = 0;
  scans = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly boot = bootedAt();
  /** Pids not naming the token, with when they were first seen. */
  private readonly others = new Map<number, number>();

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
    let session = this.current;
    const listed = new Set<number>();
    let running = false;
    for (const entry of readdirSync('/proc')) {
      if (!PID.test(entry)) continue;
      const pid = Number(entry);
      listed.add(pid);
      if (session?.pids.has(pid)) {
        // A zombie runs nothing (its parent has not reaped it yet).
        if (alive(pid)) running = true;
        continue;
      }
      const firstSeen = this.others.get(pid);
      if (firstSeen !== undefined && now - firstSeen > YOUNG_MS) continue;
      if (!cmdlineOf(pid).includes(this.token)) {
        if (firstSeen === undefined) this.others.set(pid, now);
        continue;
      }
      this.others.delete(pid);
      running = true;
      if (!session) {
        session = { spawnAt: now, firstSeenAt: now, goneAt: null, pids: new Set() };
        this.sessions.push(session);
      }
      session.pids.add(pid);
      const stat = statOf(pid);
      if (stat) {
        const startedAt = this.boot + (stat.startTicks * 1000) / CLOCK_TICKS_PER_SECOND;
        session.spawnAt = Math.min(session.spawnAt, startedAt);
      }
    }
    if (session && !running) session.goneAt = now;
    for (const pid of this.others.keys()) if (!listed.has(pid)) this.others.delete(pid);
    const used = process.cpuUsage(cpu);
    this.scanCpuMs += (used.user + used.system) / 1000;
    this.scans++;
  }
}
