// Running madge and dependency-cruiser for the graph part of `npm run bench`, and CPU time from /proc.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { intEnv } from './lib/common.js';
import { ms } from './lib/format.js';
import { round } from './lib/stats.js';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const tools = path.join(root, 'bench', 'graph-tools');

export interface ToolResult {
  /** `timeout`: killed after BENCH_GRAPH_TOOL_TIMEOUT_S; `ms` is then a lower bound. */
  status: 'ok' | 'skipped' | 'error' | 'timeout';
  ms: number | null;
  /** CPU time (user + system) of the tool's process and its children. */
  cpuMs: number | null;
  modules: number | null;
  edges: number | null;
  reason?: string;
}

/** madge and dependency-cruiser live in bench/graph-tools (they need TypeScript 5); installed on first use. */
export async function ensureTools(): Promise<string | null> {
  if (
    existsSync(path.join(tools, 'node_modules', 'madge')) &&
    existsSync(path.join(tools, 'node_modules', 'dependency-cruiser'))
  ) {
    return null;
  }
  try {
    console.log('installing madge and dependency-cruiser into bench/graph-tools (npm ci)…');
    await run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: tools, timeout: 600_000 });
    return null;
  } catch (error) {
    return `could not install bench/graph-tools: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
  }
}

const TICKS = 100;

/** Fields of /proc/<pid>/stat after the command name: utime [11], stime [12], cutime [13], cstime [14]. */
function statFields(pid: number | string): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/**
 * CPU time (ms) of this process and of its child processes with what they waited for: the parser
 * processes, and the command launcher with the git commands it ran.
 */
export function treeCpuMs(): number {
  const own = process.cpuUsage();
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(entry);
    if (!fields || Number(fields[1]) !== process.pid) continue;
    ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  }
  return (own.user + own.system) / 1000 + (ticks * 1000) / TICKS;
}

/** Runs a tool under `sh`, which then reports the CPU time of what it waited for (the tool). */
export async function timeTool(
  command: string[],
  cwd: string,
  count: (output: string) => { modules: number; edges: number },
  outputFile: string,
  toStdout: boolean,
): Promise<ToolResult> {
  const quoted = [process.execPath, '--max-old-space-size=8192', ...command]
    .map((arg) => `'${arg.replaceAll("'", "'\\''")}'`)
    .join(' ');
  const script = `${quoted}${toStdout ? ` > '${outputFile}'` : ''} || exit $?; cat /proc/$$/stat`;
  const started = performance.now();
  try {
    const { stdout } = await run('sh', ['-c', script], {
      cwd,
      maxBuffer: 64 * 1024 * 1024,
      timeout: intEnv('BENCH_GRAPH_TOOL_TIMEOUT_S', 1200) * 1000,
    });
    const elapsed = performance.now() - started;
    const fields = stdout.slice(stdout.lastIndexOf(')') + 2).split(' ');
    const cpuMs = ((Number(fields[13]) + Number(fields[14])) * 1000) / TICKS;
    return { status: 'ok', ms: round(elapsed, 0), cpuMs, ...count(await readFile(outputFile, 'utf8')) };
  } catch (error) {
    const elapsed = round(performance.now() - started, 0);
    if ((error as { killed?: boolean }).killed) {
      const reason = `still running after ${ms(elapsed)} ms`;
      return { status: 'timeout', ms: elapsed, cpuMs: null, modules: null, edges: null, reason };
    }
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
    const reason = `exit ${(error as { code?: unknown }).code}: ${stderr.split('\n').slice(-3).join(' ').slice(0, 300)}`;
    return { status: 'error', ms: null, cpuMs: null, modules: null, edges: null, reason };
  }
}
