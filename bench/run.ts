// `npm run bench`: latency and throughput of the real server over real HTTP, on PGlite and on
// PostgreSQL, plus the time `npm start` takes to answer its first health check (the foundation part,
// bench/foundation.ts), concurrent pipeline runs watched over SSE (the pipeline part, bench/pipeline/),
// the board's list at 1,000 tasks (the board part, bench/board.ts), a run's diff of 200 files
// (bench/diff.ts), and the import graph of a generated 10,000-file TypeScript repository beside madge
// and dependency-cruiser (the graph part, bench/graph.ts), and 50 agents calling check_status /
// post_status over REST and MCP on each lock store (the coordination part, bench/coordination.ts).
// Workspace services through their proxies (the services part, bench/services-proxy.ts).
// bench/parts.ts lists the parts; this file runs those asked for, prints the aims and writes the
// results file. `npm run bench -- foundation` (or pipeline, sse-flood, board, diff, graph,
// coordination, services) runs one part. See bench/README.md.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { foundationConfigForJson } from './foundation.js';
import { firstLine } from './lib/common.js';
import { cleanup } from './lib/databases.js';
import { formatJson, table } from './lib/format.js';
import { cleanupSync, ensureBuilt } from './lib/processes.js';
import { earlierRun, environment, formatActual, type Part, previousResults } from './lib/results.js';
import { round } from './lib/stats.js';
import { BENCH_PARTS, PARTS, type PartRun } from './parts.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const USAGE = `usage: npm run bench [-- ${PARTS.join('|')} …]   (no part: all, in that order)`;

/** The parts named on the command line (`npm run bench -- pipeline`); none means all of them. */
function parseParts(args: readonly string[]): Part[] {
  if (args.some((arg) => arg === '-h' || arg === '--help')) {
    console.log(USAGE);
    process.exit(0);
  }
  const named = args.map((arg) => arg.trim().toLowerCase()).filter(Boolean);
  const unknown = named.filter((arg) => arg !== 'all' && !(PARTS as readonly string[]).includes(arg));
  if (unknown.length) {
    console.error(`unknown bench part: ${unknown.join(', ')}\n${USAGE}`);
    process.exit(2);
  }
  if (named.length === 0 || named.includes('all')) return [...PARTS];
  return PARTS.filter((part) => named.includes(part));
}

const parts = parseParts(process.argv.slice(2));

async function main(): Promise<void> {
  const startedAt = new Date();
  const wall = performance.now();
  const env = environment();
  console.log(
    `AutoCoder bench (${parts.join(' + ')}) — ${env.commit ?? 'no git'}${env.dirty ? ' (uncommitted changes)' : ''}, ` +
      `Node ${env.node}, ${env.cpus} × ${env.cpuModel}, load average ${env.loadAverage.join(' ')}`,
  );

  try {
    if (await ensureBuilt(root)) console.log('built the app (dist was missing or older than the sources)');
  } catch (error) {
    // The sources may be mid-edit; an older build still serves the API the load part measures.
    if (!existsSync(path.join(root, 'dist', 'server', 'main.js'))) throw error;
    console.log(`could not rebuild, so the bench uses the existing dist/: ${firstLine(error)}`);
  }

  const ran = new Map<Part, PartRun>();
  for (const part of parts) ran.set(part, await BENCH_PARTS[part].run());
  const aims = [...ran.values()].flatMap((run) => run.aims);

  // --- report
  console.log('\n================================== results ==================================');
  for (const run of ran.values()) run.print(parts);
  console.log('\nAims');
  console.log(
    table(
      ['aim', 'target', 'actual', 'verdict'],
      aims.map((aim) => [
        aim.name,
        aim.target,
        formatActual(aim),
        aim.met === null ? 'not measured' : aim.met ? 'met' : 'NOT MET',
      ]),
    ),
  );

  // A run of some parts keeps the other parts' figures from the previous file, saying when they were taken.
  const resultsDir = path.join(root, 'bench', 'results');
  const resultsFile = path.join(resultsDir, 'latest.json');
  const previous = ran.size === PARTS.length ? null : await previousResults(resultsFile);
  const kept = Object.fromEntries(
    PARTS.map((part) => [part, !ran.has(part) && previous?.[BENCH_PARTS[part].keys[0]] !== undefined]),
  ) as Record<Part, boolean>;
  const figures: Record<string, unknown> = {};
  for (const part of PARTS) {
    const run = ran.get(part);
    if (run) Object.assign(figures, run.json());
    else if (kept[part]) for (const key of BENCH_PARTS[part].keys) figures[key] = previous?.[key];
  }
  const keptParts = PARTS.filter((part) => kept[part]);
  const keptAims = (previous?.aims ?? []).filter((aim) => kept[aim.part ?? 'foundation']);
  const result = {
    schema: 1,
    startedAt: startedAt.toISOString(),
    durationMs: round(performance.now() - wall, 0),
    /** The parts this run made; see `carriedOver` for figures kept from an earlier run. */
    parts,
    environment: { ...env, loadAverageAtEnd: os.loadavg().map((value) => round(value, 2)) },
    // The foundation part's settings, written by every run (the previous ones when its figures are kept).
    config: kept.foundation && previous?.config ? previous.config : foundationConfigForJson(),
    ...figures,
    aims: [...aims, ...keptAims],
    ...(previous && keptParts.length > 0
      ? {
          carriedOver: Object.fromEntries(
            keptParts.map((part) => [part, previous.carriedOver?.[part] ?? earlierRun(previous)]),
          ),
        }
      : {}),
  };
  await mkdir(resultsDir, { recursive: true });
  await writeFile(resultsFile, formatJson(result));
  console.log(`\nwrote bench/results/latest.json in ${Math.round((performance.now() - wall) / 1000)} s`);
  console.log(`BENCH_RESULT ${JSON.stringify(result)}`);
  if ([...ran.values()].some((run) => run.failed)) process.exitCode = 1;
}

process.on('exit', cleanupSync);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping the servers and cleaning up…`);
    void cleanup().finally(() => process.exit(130));
  });
}

try {
  await main();
} catch (error) {
  console.error(`\nbench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
