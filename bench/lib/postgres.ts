import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface BenchDatabase {
  name: string;
  /** The admin URL with the fresh database in place of the original one. */
  url: string;
  drop(): Promise<void>;
}

/** The URL with the password hidden, for printing. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable URL)';
  }
}

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  client.on('error', () => {
    // a dropped connection surfaces through the pending query
  });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Settles a database just seeded through the API, as autovacuum would soon after: `VACUUM ANALYZE`,
 * so the planner knows the tables' sizes and autovacuum does not start in the middle of what is
 * measured next (on a machine of two cores, a vacuum running beside the server is a stall).
 */
export async function settleDatabase(url: string): Promise<void> {
  await withClient(url, (client) => client.query('VACUUM ANALYZE'));
}

/**
 * Creates `autocoder_bench_<random>` next to the database `adminUrl` points at.
 * Answers `{ skipped: reason }` when PostgreSQL cannot be reached, so that the caller can skip it.
 */
export async function createBenchDatabase(
  adminUrl: string,
): Promise<{ database: BenchDatabase } | { skipped: string }> {
  const name = `autocoder_bench_${randomBytes(4).toString('hex')}`;
  try {
    await withClient(adminUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  } catch (error) {
    return { skipped: error instanceof Error ? error.message || error.name : String(error) };
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    database: {
      name,
      url: url.toString(),
      async drop() {
        if (dropped) return;
        await withClient(adminUrl, (client) =>
          client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
        );
        dropped = true;
      },
    },
  };
}
