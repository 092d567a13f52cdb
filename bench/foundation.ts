// The foundation part: start-up time (bench/foundation-start.ts), then the HTTP load on each database
// (bench/foundation-load.ts); its aims, its report and its settings as the results file records them.
import { benchServer, type DatabaseResult } from './foundation-load.js';
import { measureStart, type StartResult } from './foundation-start.js';
import { type Aim, firstLine } from './lib/common.js';
import { config, eachDatabase } from './lib/databases.js';
import { int, ms, table } from './lib/format.js';
import { redactUrl } from './lib/postgres.js';

const AIMS = { coldStartMs: 3000, postgresReadP99Ms: 20 };

/** The settings of the foundation part as the results file records them (its `config`). */
export const foundationConfigForJson = () => ({
  clients: config.clients,
  tasks: config.tasks,
  seedConcurrency: config.seedConcurrency,
  loginRequests: config.loginRequests,
  listRequests: config.listRequests,
  moveRequests: config.moveRequests,
  serialRequests: config.serialRequests,
  timeCapMs: config.timeCapMs,
  startRuns: config.startRuns,
  postgresUrl: redactUrl(config.postgresUrl),
});

export interface FoundationResult {
  start: StartResult;
  databases: DatabaseResult[];
  aims: Aim[];
}

export async function runFoundation(): Promise<FoundationResult> {
  console.log(
    `\n=== Foundation: ${config.clients} clients; ${config.loginRequests} logins, ${config.listRequests} lists of ` +
      `${config.tasks} tasks, ${config.moveRequests} moves; ${config.timeCapMs / 1000} s cap per scenario\n`,
  );
  console.log(`Start-up: npm start → first 200 of /api/health (${config.startRuns} runs)`);
  const start: StartResult =
    config.startRuns > 0
      ? await measureStart().catch(
          (error: unknown): StartResult => ({
            status: 'skipped',
            reason: `npm start failed: ${firstLine(error)}`,
          }),
        )
      : { status: 'skipped', reason: 'BENCH_START_RUNS=0' };
  if (start.status === 'skipped') console.log(`  skipped: ${start.reason}`);

  const databases = await eachDatabase<DatabaseResult>(benchServer, (database, reason) => ({
    status: 'skipped',
    database,
    reason,
  }));

  const postgres = databases.find((result) => result.database === 'postgres');
  const postgresList = postgres?.status === 'ok' ? postgres.scenarios.list.latency.p99 : null;
  const aims: Aim[] = [
    {
      name: 'cold start (npm start → first 200 of /api/health), median',
      target: `< ${AIMS.coldStartMs} ms`,
      actual: start.status === 'ok' ? start.cold.median : null,
      unit: 'ms',
      met: start.status === 'ok' ? start.cold.median < AIMS.coldStartMs : null,
    },
    {
      name: `PostgreSQL read p99 (list ${config.tasks} tasks, ${config.clients} clients)`,
      target: `< ${AIMS.postgresReadP99Ms} ms`,
      actual: postgresList,
      unit: 'ms',
      met: postgresList === null ? null : postgresList < AIMS.postgresReadP99Ms,
    },
  ];
  if (postgres?.status === 'ok') {
    const serial = postgres.scenarios.listSerial.latency.p99;
    aims.push({
      name: `PostgreSQL read p99 (list ${config.tasks} tasks, 1 client; for reference)`,
      target: `< ${AIMS.postgresReadP99Ms} ms`,
      actual: serial,
      unit: 'ms',
      met: serial < AIMS.postgresReadP99Ms,
    });
  }
  return { start, databases, aims: aims.map((aim) => ({ ...aim, part: 'foundation' })) };
}

export function printFoundation({ start, databases }: FoundationResult): void {
  if (start.status === 'ok') {
    console.log(
      `\nStart-up, PGlite, fresh AUTOCODER_DATA_DIR (cold) then the same one (warm), ` +
        `${start.cold.runs.length} runs${start.note ? ` (${start.note})` : ''}`,
    );
    console.log(
      table(
        ['', 'min', 'median', 'max', 'runs'],
        [
          [
            'cold start',
            ms(start.cold.min),
            ms(start.cold.median),
            ms(start.cold.max),
            start.cold.runs.join(', '),
          ],
          [
            'warm restart',
            ms(start.warm.min),
            ms(start.warm.median),
            ms(start.warm.max),
            start.warm.runs.join(', '),
          ],
        ],
      ),
    );
  } else {
    console.log(`\nStart-up: skipped (${start.reason})`);
  }
  for (const result of databases) {
    const title = result.database === 'pglite' ? 'PGlite' : 'PostgreSQL';
    if (result.status === 'skipped') {
      console.log(`\n${title}: skipped — ${result.reason}`);
      continue;
    }
    console.log(
      `\n${title} — node dist/server/main.js (started in ${ms(result.serverStartMs)} ms), ${config.tasks} tasks, ` +
        `list response ${int(result.listResponseBytes)} bytes`,
    );
    console.log(scenarioTable(result));
    for (const s of [result.seed, ...Object.values(result.scenarios)]) {
      if (s.errors) console.log(`  ${s.name}: ${s.errors} errors ${JSON.stringify(s.errorKinds)}`);
      if (s.capped)
        console.log(`  ${s.name}: stopped by the ${config.timeCapMs / 1000} s cap after ${s.ok} requests`);
    }
    if (!result.rateLimitLifted) {
      console.log(
        `  login: ${result.scenarios.login.rateLimited} answers were 429 (rate limited) — counted apart, not in the latencies`,
      );
    }
    for (const entry of result.serverLog.slice(0, 5))
      console.log(`  server log ×${entry.count}: ${entry.line}`);
  }
}

function scenarioTable(result: Extract<DatabaseResult, { status: 'ok' }>): string {
  const rows = [
    result.scenarios.login,
    result.scenarios.list,
    result.scenarios.listSerial,
    result.scenarios.move,
    result.seed,
  ].map((s) => [
    `${s.name}  ${s.label}`,
    String(s.concurrency),
    int(s.ok),
    int(s.rateLimited),
    int(s.errors),
    ms(s.latency.mean),
    ms(s.latency.p50),
    ms(s.latency.p90),
    ms(s.latency.p99),
    ms(s.latency.max),
    int(s.throughput),
    s.serverCpuPercent === null ? '–' : `${s.serverCpuPercent}%`,
  ]);
  return table(
    ['scenario', 'clients', 'ok', '429', 'err', 'mean', 'p50', 'p90', 'p99', 'max', 'req/s', 'srv CPU'],
    rows,
  );
}
