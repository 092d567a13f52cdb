// The diff part of `npm run bench` (`npm run bench -- diff`): the diff API of a run whose branch touches
// 200 files with 20,000 changed lines, read by a few clients at once (issue 8's aims), and the time to
// approve (merge) such runs (bench/approve.ts).
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { RunDiff } from '../src/contracts/diff.js';
import { type ApproveFigures, benchApprovals } from './approve.js';
import { createBigRun } from './big-run.js';
import { intEnv, summarizeLog } from './lib/common.js';
import { int, ms } from './lib/format.js';
import { BenchClient, registerWithProject } from './lib/http.js';
import { runScenario, type ScenarioResult } from './lib/load.js';
import { redactUrl } from './lib/postgres.js';
import { startBenchServer } from './lib/server.js';
import { round } from './lib/stats.js';

export interface DiffBenchConfig {
  /** Files the branch touches (half modified from the base, half added), besides the simulator's own. */
  files: number;
  /** Changed lines over all those files. */
  lines: number;
  clients: number;
  summaryRequests: number;
  fileRequests: number;
  timeCapMs: number;
  /** Fresh runs of the same size approved per case (fast-forward, merge commit); 0: none. */
  approveRuns: number;
}

export function diffConfig(): DiffBenchConfig {
  return {
    files: intEnv('BENCH_DIFF_FILES', 200),
    lines: intEnv('BENCH_DIFF_LINES', 20_000),
    clients: intEnv('BENCH_DIFF_CLIENTS', 4),
    summaryRequests: intEnv('BENCH_DIFF_SUMMARY_REQUESTS', 200),
    fileRequests: intEnv('BENCH_DIFF_FILE_REQUESTS', 1000),
    timeCapMs: intEnv('BENCH_DIFF_TIME_CAP_S', 60) * 1000,
    approveRuns: intEnv('BENCH_APPROVE_RUNS', 5),
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
      /** POST …/approve of fresh runs of the same size, per case (bench/approve.ts). */
      approve: ApproveFigures[];
      loadAverage: { start: number[]; end: number[] };
      serverLog: { line: string; count: number }[];
    }
  | { status: 'skipped'; database: 'pglite' | 'postgres'; reason: string };

const PASSWORD = 'correct horse battery staple';

export async function benchDiff(
  kind: 'pglite' | 'postgres',
  databaseUrl: string | undefined,
  config: DiffBenchConfig,
): Promise<DiffDbResult> {
  const bench = await startBenchServer({
    kind,
    databaseUrl,
    name: 'diff',
    env: { AUTOCODER_SIMULATOR_DELAY_MS: '0' },
    cpuProfile: true,
  });
  const { server, port, dataDir } = bench;
  const agent = new http.Agent({ keepAlive: true, maxSockets: config.clients + 1, timeout: 4_000 });
  try {
    const owner = new BenchClient(agent, port);
    const projectId = await registerWithProject(
      owner,
      `diff-${randomBytes(4).toString('hex')}@example.com`,
      PASSWORD,
    );
    const change = { files: config.files, lines: config.lines };
    const where = { dataDir, projectId };
    const ended = await createBigRun(owner, where, change, { title: 'Add greeting helper', dir: '' });

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
    const approve =
      config.approveRuns > 0 ? await benchApprovals(owner, where, change, config.approveRuns) : [];

    return {
      status: 'ok',
      database: kind,
      ...(databaseUrl ? { postgresUrl: redactUrl(databaseUrl) } : {}),
      shape,
      coldMs,
      scenarios,
      approve,
      loadAverage: { start, end: os.loadavg().map((value) => round(value, 2)) },
      serverLog: summarizeLog(server.output()),
    };
  } finally {
    agent.destroy();
    await bench.stop();
  }
}
