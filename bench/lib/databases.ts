// The databases the foundation, pipeline, sse-flood, board, diff and coordination parts run on
// (BENCH_DATABASES), the foundation part's load settings, and `eachDatabase`: a throwaway PostgreSQL
// database per part, dropped afterwards and by `cleanup()` on error or Ctrl-C.
import { intEnv } from './common.js';
import { type BenchDatabase, createBenchDatabase, redactUrl } from './postgres.js';
import { stopAll } from './processes.js';

export type DbKind = 'pglite' | 'postgres';

export const config = {
  clients: intEnv('BENCH_CLIENTS', 50),
  tasks: intEnv('BENCH_TASKS', 1000),
  seedConcurrency: intEnv('BENCH_SEED_CONCURRENCY', 20),
  loginRequests: intEnv('BENCH_LOGIN_REQUESTS', 500),
  listRequests: intEnv('BENCH_LIST_REQUESTS', 10_000),
  moveRequests: intEnv('BENCH_MOVE_REQUESTS', 2000),
  serialRequests: intEnv('BENCH_SERIAL_REQUESTS', 60),
  timeCapMs: intEnv('BENCH_TIME_CAP_S', 10) * 1000,
  startRuns: intEnv('BENCH_START_RUNS', 3),
  databases: (process.env.BENCH_DATABASES ?? 'pglite,postgres')
    .split(',')
    .map((name) => name.trim())
    .filter((name): name is DbKind => name === 'pglite' || name === 'postgres'),
  postgresUrl:
    process.env.BENCH_DATABASE_URL ||
    process.env.TEST_DATABASE_URL ||
    'postgres://postgres@127.0.0.1:5432/test',
};

let benchDatabase: BenchDatabase | undefined;

/** Stops every server still running and drops the PostgreSQL database of the part under way, if any. */
export async function cleanup(): Promise<void> {
  await stopAll();
  if (benchDatabase) {
    await benchDatabase.drop().catch((error: unknown) => {
      console.error(
        `could not drop ${benchDatabase?.name}: ${error instanceof Error ? error.message : error}`,
      );
    });
  }
}

/**
 * Runs `measure` once per database of BENCH_DATABASES: PostgreSQL in a fresh database dropped
 * afterwards (and by cleanup() on error or Ctrl-C), or skipped when PostgreSQL cannot be reached.
 */
export async function eachDatabase<R>(
  measure: (kind: DbKind, databaseUrl: string | undefined) => Promise<R>,
  skipped: (kind: DbKind, reason: string) => R,
): Promise<R[]> {
  const results: R[] = [];
  for (const kind of config.databases) {
    console.log(`\n${kind === 'pglite' ? 'PGlite' : 'PostgreSQL'}`);
    if (kind === 'pglite') {
      results.push(await measure('pglite', undefined));
      continue;
    }
    const created = await createBenchDatabase(config.postgresUrl);
    if ('skipped' in created) {
      const reason = `PostgreSQL at ${redactUrl(config.postgresUrl)} is unreachable (${created.skipped})`;
      console.log(`  skipped the PostgreSQL part: ${reason}`);
      results.push(skipped('postgres', reason));
      continue;
    }
    benchDatabase = created.database;
    console.log(`  database ${created.database.name} on ${redactUrl(config.postgresUrl)}`);
    try {
      results.push(await measure('postgres', created.database.url));
    } finally {
      await created.database.drop();
      benchDatabase = undefined;
    }
  }
  return results;
}
