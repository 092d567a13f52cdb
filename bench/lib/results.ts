// What the results file says besides the figures: the machine and commit a run was made on, the
// previous file (whose figures a run of some parts carries over, saying when they were taken), and an
// aim's measured value as the Aims table shows it.
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Aim } from './common.js';
import { ms } from './format.js';
import { round } from './stats.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * A part of the bench, as `npm run bench -- <part>` names it and an aim's `part` says; `engines`
 * has no aims (it compares the coder engines' overhead), so only this list names it.
 */
export type Part = NonNullable<Aim['part']> | 'engines';

export function environment() {
  const git = (args: string[]) => {
    try {
      return execFileSync('git', args, {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim();
    } catch {
      return null;
    }
  };
  const status = git(['status', '--porcelain']);
  return {
    node: process.version,
    platform: `${process.platform} ${os.release()} ${process.arch}`,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryMb: Math.round(os.totalmem() / 1024 / 1024),
    /** 1/5/15-minute load averages when the bench began: other work on the machine skews every figure. */
    loadAverage: os.loadavg().map((value) => round(value, 2)),
    commit: git(['rev-parse', '--short', 'HEAD']),
    dirty: status === null ? null : status.length > 0,
  };
}

export interface PreviousResults {
  startedAt?: string;
  environment?: { commit?: string | null; dirty?: boolean | null; loadAverage?: number[] };
  config?: unknown;
  aims?: Aim[];
  carriedOver?: Partial<Record<Part, unknown>>;
  /** Each part's figures, under its keys (`start` and `databases`, `pipeline`, `sseFlood`, …). */
  [key: string]: unknown;
}

/** The previous results file (schema 1), or null when there is none or it cannot be read. */
export async function previousResults(file: string): Promise<PreviousResults | null> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as PreviousResults & { schema?: number };
    return parsed.schema === 1 ? parsed : null;
  } catch {
    return null;
  }
}

/** Where figures kept from an earlier run came from. */
export const earlierRun = (previous: PreviousResults) => ({
  startedAt: previous.startedAt ?? null,
  commit: previous.environment?.commit ?? null,
  dirty: previous.environment?.dirty ?? null,
  loadAverage: previous.environment?.loadAverage ?? null,
});

export function formatActual(aim: Aim): string {
  if (aim.actual === null || Number.isNaN(aim.actual)) return '–';
  return aim.unit === 'ms' ? `${ms(aim.actual)} ms` : `${aim.actual.toFixed(1)} ${aim.unit}`;
}
