import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { type Database, openDatabase } from '../db/client.js';

/**
 * A fresh, migrated database for one test file: a new database on the PostgreSQL
 * server of TEST_DATABASE_URL when it is set, otherwise PGlite in a temp dir copied from the
 * run's template (in memory when no template was provided).
 */
export async function openTestDatabase(): Promise<Database> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) return openPgliteCopy();
  const name = `autocoder_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ url: url.toString(), poolSize: 10 });
  return {
    ...database,
    async close() {
      await database.close();
      const dropper = new pg.Client({ connectionString: adminUrl });
      await dropper.connect();
      try {
        // The pool's sockets may still be saying goodbye: wait for them rather than killing them,
        // which would surface as "terminating connection" errors in the closing pool.
        for (let attempt = 0; attempt < 100; attempt++) {
          const { rows } = await dropper.query(
            'select count(*)::int as n from pg_stat_activity where datname = $1',
            [name],
          );
          if (rows[0]?.n === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await dropper.end();
      }
    },
  };
}

/** PGlite in a temp dir copied from the run's template (see tests/global-setup.ts); in memory without one. */
async function openPgliteCopy(): Promise<Database> {
  const template = inject('pgliteTemplate');
  if (!template) return openDatabase({});
  const dir = await mkdtemp(path.join(tmpdir(), 'autocoder-pglite-'));
  const database = await openDatabase({ dataDir: path.join(dir, 'pglite'), templateDir: template });
  return {
    ...database,
    async close() {
      await database.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
