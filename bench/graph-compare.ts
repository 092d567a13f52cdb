// Running madge and dependency-cruiser for the graph part of `npm run bench`, and CPU time from /proc.
import { execFile, spawn } from 'node:child_process';
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

export interface ToolRun {
  /** The tool's script and its arguments (run by this Node). */
  command: string[];
  cwd: string;
  /** Modules and edges from the tool's output. */
  count: (output: string) => { modules: number; edges: number };
  outputFile: string;
  /** The tool writes its answer to stdout (else to `outputFile` itself). */
  toStdout: boolean;
  /**
   * The stack the tool needs, in kB: madge walks the graph depth first by recursion, and a
   * 10,000-file repository's import chains overflow Node's default ~1 MB stack. `sh` raises its
   * own limit (`ulimit -s`) first, so that V8's limit stays below the real stack.
   */
  stackKb?: number;
}

/**
 * Runs a tool under `sh` in a process group of its own: `sh` then reports the CPU time of what it
 * waited for (the tool), and a tool still running after BENCH_GRAPH_TOOL_TIMEOUT_S is killed with
 * all its processes (then `ms` is a lower bound).
 */
export async function timeTool(tool: ToolRun): Promise<ToolResult> {
  const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;
  const stack = tool.stackKb ? [`--stack-size=${tool.stackKb}`] : [];
  const node = [process.execPath, '--max-old-space-size=8192', ...stack, ...tool.command]
    .map(quote)
    .join(' ');
  const raise = tool.stackKb ? `ulimit -s ${tool.stackKb * 2} 2>/dev/null || exit 97; ` : '';
  const output = tool.toStdout ? ` > ${quote(tool.outputFile)}` : '';
  const script = `${raise}${node}${output} || exit $?; cat /proc/$$/stat`;
  const timeoutMs = intEnv('BENCH_GRAPH_TOOL_TIMEOUT_S', 600) * 1000;
  const started = performance.now();
  const child = spawn('sh', ['-c', script], {
    cwd: tool.cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: Buffer[] = [];
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // already gone
    }
  }, timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.on('close', (exit) => resolve(exit)));
  clearTimeout(timer);
  const elapsed = round(performance.now() - started, 0);
  if (killed) {
    const reason = `still running after ${ms(elapsed)} ms (BENCH_GRAPH_TOOL_TIMEOUT_S), killed`;
    return { status: 'timeout', ms: elapsed, cpuMs: null, modules: null, edges: null, reason };
  }
  if (code !== 0) {
    const why =
      code === 97
        ? `could not raise the stack limit to ${tool.stackKb} kB`
        : stderr.trim().split('\n').slice(-3).join(' ').slice(0, 300);
    return {
      status: 'error',
      ms: null,
      cpuMs: null,
      modules: null,
      edges: null,
      reason: `exit ${code}: ${why}`,
    };
  }
  const text = Buffer.concat(stdout).toString();
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const cpuMs = ((Number(fields[13]) + Number(fields[14])) * 1000) / TICKS;
  try {
    return { status: 'ok', ms: elapsed, cpuMs, ...tool.count(await readFile(tool.outputFile, 'utf8')) };
  } catch (error) {
    const reason = `unreadable output: ${error instanceof Error ? error.message : String(error)}`;
    return { status: 'error', ms: elapsed, cpuMs, modules: null, edges: null, reason };
  }
}
