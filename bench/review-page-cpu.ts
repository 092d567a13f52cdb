// How much CPU the page's renderer got while a phase ran, and how long it waited for one: a long
// task is wall time, and on a busy machine part of it is the renderer's main thread waiting while
// other processes run. Linux /proc: the main threads (tid = pid) of the Chromium renderers that
// descend from this process (the browser it launched); null elsewhere.
import { readdirSync, readFileSync } from 'node:fs';
import { schedStatMs } from './lib/common.js';
import { round } from './lib/stats.js';

export interface RendererCpu {
  /** The renderers' main threads ran this long, ms. */
  runMs: number;
  /** ... and were runnable but waited for a CPU this long, ms. */
  waitMs: number;
}

type Snapshot = Map<number, { runMs: number; waitMs: number }>;

/** A process's command line as one string (Chromium's children rewrite theirs as one). */
const cmdline = (pid: number | string) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
};

/** A process's parent and process group, from /proc/<pid>/stat. */
function statOf(pid: string): { parent: number; group: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const parent = Number(fields[1]);
    const group = Number(fields[2]);
    return Number.isFinite(parent) && Number.isFinite(group) ? { parent, group } : null;
  } catch {
    return null;
  }
}

/**
 * The renderers' main-thread times now (null off Linux). Ours: Chromium runs its processes in the
 * process group of the browser, which is a child of this process.
 */
export function rendererSnapshot(): Snapshot | null {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return null;
  }
  const stats = new Map(entries.map((entry) => [entry, statOf(entry)]));
  const children = new Set(
    entries.filter((entry) => stats.get(entry)?.parent === process.pid).map((entry) => Number(entry)),
  );
  const snapshot: Snapshot = new Map();
  for (const entry of entries) {
    const group = stats.get(entry)?.group;
    if (group === undefined || !children.has(group) || !cmdline(entry).includes('--type=renderer')) continue;
    const times = schedStatMs(Number(entry));
    if (times) snapshot.set(Number(entry), times);
  }
  return snapshot;
}

/** What the renderers used between two snapshots (renderers started meanwhile count from zero). */
export function rendererDelta(before: Snapshot | null, after: Snapshot | null): RendererCpu | null {
  if (!before || !after) return null;
  let runMs = 0;
  let waitMs = 0;
  for (const [pid, times] of after) {
    const start = before.get(pid) ?? { runMs: 0, waitMs: 0 };
    runMs += times.runMs - start.runMs;
    waitMs += times.waitMs - start.waitMs;
  }
  return { runMs: round(runMs, 0), waitMs: round(waitMs, 0) };
}
