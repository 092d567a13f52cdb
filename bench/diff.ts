// The diff part of `npm run bench` (`npm run bench -- diff`): the diff API of a run whose branch touches
// 200 files with 20,000 changed lines, read by a few clients at once (issue 8's aims).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { RunDiff } from '../src/contracts/diff.js';
import type { Health } from '../src/contracts/health.js';
import type { Task } from '../src/contracts/tasks.js';
import { baseEnv, cpuProfileArgs, intEnv, RATE_LIMIT_ENV, summarizeLog } from './lib/common.js';
import { int, ms } from './lib/format.js';
import { BenchClient, registerWithProject } from './lib/http.js';
import { runScenario, type ScenarioResult } from './lib/load.js';
import { redactUrl } from './lib/postgres.js';
import { freePort, makeTempDir, removeTempDir, spawnGroup, waitHealthy } from './lib/processes.js';
import { round } from './lib/stats.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const run = promisify(execFile);

export interface DiffBenchConfig {
  /** Files the branch touches (half modified from the base, half added), besides the simulator's own. */
  files: number;
  /** Changed lines over all those files. */
  lines: number;
  clients: number;
  summaryRequests: number;
  fileRequests: number;
  timeCapMs: number;
}

export function diffConfig(): DiffBenchConfig {
  return {
    files: intEnv('BENCH_DIFF_FILES', 200),
    lines: intEnv('BENCH_DIFF_LINES', 20_000),
    clients: intEnv('BENCH_DIFF_CLIENTS', 4),
    summaryRequests: intEnv('BENCH_DIFF_SUMMARY_REQUESTS', 200),
    fileRequests: intEnv('BENCH_DIFF_FILE_REQUESTS', 1000),
    timeCapMs: intEnv('BENCH_DIFF_TIME_CAP_S', 60) * 1000,
  };
}

export type DiffDbResult =
  | {
      status: 'ok';
      database: 'pglite' | 'postgres';
      postgresUrl?: string;
      /** The diff as served: files, changed lines, bytes of one summary. */
      shape: { files: number; additions: number; deletions: number; summaryBytes: number };
      /** The first summary and the first read of one file: computed by git, nothing kept yet. */
      coldMs: { summary: number; file: number };
      scenarios: ScenarioResult[];
      loadAverage: { start: number[]; end: number[] };
      serverLog: { line: string; count: number }[];
    }
  | { status: 'skipped'; database: 'pglite' | 'postgres'; reason: string };

const PASSWORD = 'correct horse battery staple';
const git = (cwd: string, args: string[]) =>
  run('git', ['-c', 'user.name=Bench', '-c', 'user.email=bench@localhost', ...args], {
    cwd,
    maxBuffer: 64 * 1024 * 1024,
  });

/** A source-like line: files differ, and so do their lines. */
const line = (file: number, index: number, salt: string) =>
  `export const value_${file}_${index} = '${salt}-${file}-${index}-${'x'.repeat(24)}';`;
const extensions = ['ts', 'tsx', 'py', 'go', 'md', 'json', 'css', 'rs'];
const fileName = (index: number) =>
  `pkg${index % 10}/module-${index}.${extensions[index % extensions.length] ?? 'txt'}`;

/** Writes `count` files of `lines` lines under `dir` (numbered from `first`) and commits them. */
async function writeFiles(
  dir: string,
  first: number,
  count: number,
  content: (file: number) => string,
  message: string,
) {
  for (let file = first; file < first + count; file++) {
    const target = path.join(dir, fileName(file));
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content(file));
  }
  await git(dir, ['add', '-A']);
  await git(dir, ['commit', '--quiet', '--no-verify', '-m', message]);
}

async function waitForRun(owner: BenchClient, taskId: string): Promise<{ runId: string; status: string }> {
  const deadline = performance.now() + 120_000;
  for (;;) {
    const status = await owner.json<{ runId: string; status: string }>(
      'GET',
      `/api/pipeline/${taskId}/status`,
      undefined,
      200,
    );
    if (status.status !== 'running') return status;
    if (performance.now() > deadline) throw new Error('the run did not end within 120 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function benchDiff(
  kind: 'pglite' | 'postgres',
  databaseUrl: string | undefined,
  config: DiffBenchConfig,
): Promise<DiffDbResult> {
  const dataDir = await makeTempDir(`autocoder-bench-diff-${kind}-`);
  const port = await freePort();
  const since = performance.now();
  const server = spawnGroup(process.execPath, [...cpuProfileArgs(), 'dist/server/main.js'], root, {
    ...baseEnv(),
    PORT: String(port),
    HOST: '127.0.0.1',
    AUTOCODER_DATA_DIR: dataDir,
    AUTOCODER_SIMULATOR_DELAY_MS: '0',
    LOG_LEVEL: 'warn',
    [RATE_LIMIT_ENV]: '1000000',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: config.clients + 1, timeout: 4_000 });
  try {
    const health = await waitHealthy(port, server, since, { intervalMs: 20 });
    const served = (JSON.parse(health.body) as Health).database;
    if (served !== kind) throw new Error(`the server runs on ${served}, expected ${kind}`);

    const owner = new BenchClient(agent, port);
    const projectId = await registerWithProject(
      owner,
      `diff-${randomBytes(4).toString('hex')}@example.com`,
      PASSWORD,
    );
    // Half the files exist on the default branch before the run (the branch modifies them), half are new.
    const modified = Math.floor(config.files / 2);
    const added = config.files - modified;
    const perFile = Math.max(2, Math.round(config.lines / config.files));
    const half = Math.floor(perFile / 2);
    const repoPath = path.join(dataDir, 'repos', projectId);
    await writeFiles(
      repoPath,
      0,
      modified,
      (file) => `${Array.from({ length: perFile }, (_, i) => line(file, i, 'base')).join('\n')}\n`,
      'Files the run will change',
    );

    const task = await owner.json<Task>(
      'POST',
      '/api/tasks',
      { projectId, title: 'Add greeting helper', description: 'A function that greets a person by name.' },
      201,
    );
    await owner.json('POST', `/api/tasks/${task.id}/start-pipeline`, { provider: 'simulator' }, 202);
    const ended = await waitForRun(owner, task.id);
    if (ended.status !== 'passed') throw new Error(`the run ended ${ended.status}, expected passed`);

    // On the run's branch, in its worktree (kept until approval): every modified file gets `half`
    // lines replaced (half deletions, half additions), every added file `perFile` lines.
    const worktree = path.join(dataDir, 'worktrees', ended.runId);
    await writeFiles(
      worktree,
      0,
      modified,
      (file) =>
        `${Array.from({ length: perFile }, (_, i) => line(file, i, i < half ? 'changed' : 'base')).join('\n')}\n`,
      'Change half of every file',
    );
    await writeFiles(
      worktree,
      modified,
      added,
      (file) => `${Array.from({ length: perFile }, (_, i) => line(file, i, 'new')).join('\n')}\n`,
      'Add the other files',
    );

    const diffPath = `/api/pipeline/runs/${ended.runId}/diff`;
    const coldStart = performance.now();
    const first = await owner.request('GET', diffPath);
    const coldSummary = performance.now() - coldStart;
    if (first.status !== 200)
      throw new Error(`the diff answered ${first.status}: ${first.body.toString().slice(0, 200)}`);
    const diff = JSON.parse(first.body.toString('utf8')) as RunDiff;
    const shape = {
      files: diff.stats.filesChanged,
      additions: diff.stats.additions,
      deletions: diff.stats.deletions,
      summaryBytes: first.body.length,
    };
    console.log(
      `  the run's diff: ${int(shape.files)} files, +${int(shape.additions)} −${int(shape.deletions)} lines, ` +
        `${int(shape.summaryBytes)} bytes of JSON`,
    );
    const paths = diff.files.map((file) => file.path);
    const fileStart = performance.now();
    await owner.json('GET', `${diffPath}/file?path=${encodeURIComponent(paths[0] ?? '')}`, undefined, 200);
    const coldMs = { summary: round(coldSummary, 1), file: round(performance.now() - fileStart, 1) };
    console.log(`  first summary ${ms(coldMs.summary)} ms, first file ${ms(coldMs.file)} ms`);

    const clients = Array.from({ length: config.clients }, () => new BenchClient(agent, port));
    for (const client of clients) client.cookie = owner.cookie;
    const get = async (worker: number, target: string) =>
      (await (clients[worker] ?? owner).request('GET', target)).status;
    const start = os.loadavg().map((value) => round(value, 2));
    const scenarios: ScenarioResult[] = [];
    const measure = async (
      name: string,
      label: string,
      requests: number,
      concurrency: number,
      send: (worker: number, index: number) => Promise<number>,
    ) => {
      const done = await runScenario({
        name,
        label,
        requests,
        concurrency,
        timeCapMs: config.timeCapMs,
        warmup: concurrency * 2,
        expect: 200,
        serverPid: server.pid,
        send,
      });
      scenarios.push(done);
      console.log(
        `  ${name.padEnd(14)} ${int(done.ok).padStart(5)} ok  p50 ${ms(done.latency.p50)} ms  p99 ${ms(done.latency.p99)} ms  ${int(done.throughput)} req/s${done.errors ? `  ${done.errors} errors ${JSON.stringify(done.errorKinds)}` : ''}`,
      );
    };
    const fileTarget = (index: number) =>
      `${diffPath}/file?path=${encodeURIComponent(paths[index % paths.length] ?? '')}`;

    await measure('summary', 'GET …/diff', config.summaryRequests, config.clients, (w) => get(w, diffPath));
    await measure('summary-serial', 'GET …/diff (1 client)', Math.ceil(config.summaryRequests / 4), 1, (w) =>
      get(w, diffPath),
    );
    await measure('file', 'GET …/diff/file?path=…', config.fileRequests, config.clients, (w, i) =>
      get(w, fileTarget(i)),
    );
    await measure(
      'file-serial',
      'GET …/diff/file?path=… (1 client)',
      Math.ceil(config.fileRequests / 4),
      1,
      (w, i) => get(w, fileTarget(i)),
    );

    return {
      status: 'ok',
      database: kind,
      ...(databaseUrl ? { postgresUrl: redactUrl(databaseUrl) } : {}),
      shape,
      coldMs,
      scenarios,
      loadAverage: { start, end: os.loadavg().map((value) => round(value, 2)) },
      serverLog: summarizeLog(server.output()),
    };
  } finally {
    agent.destroy();
    await server.stop();
    await removeTempDir(dataDir);
  }
}
