import { existsSync } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { copyTree } from './copy-tree.js';
import { PgliteThread } from './pglite-thread.js';
import { schema } from './schema.js';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type DatabaseKind = 'pglite' | 'postgres';

export interface QueryStats {
  /** Statements sent to the database. */
  statements: number;
  /** INSERT, UPDATE and DELETE statements among them. */
  writes: number;
}

export interface Database {
  db: Db;
  kind: DatabaseKind;
  /** Running counts of statements, for /api/metrics and the benchmarks. */
  stats: QueryStats;
  close(): Promise<void>;
}

const WRITE = /^\s*(insert|update|delete)\b/i;

function countingLogger(stats: QueryStats) {
  return {
    logQuery(query: string) {
      stats.statements += 1;
      if (WRITE.test(query)) stats.writes += 1;
    },
  };
}

/** Where drizzle-kit writes migrations; found from this file in source and in the bundled server alike. */
export function migrationsFolder(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.resolve(here, '../../../drizzle'), path.resolve(here, '../../drizzle')];
  const found = candidates.find((candidate) => existsSync(path.join(candidate, 'meta', '_journal.json')));
  if (!found) throw new Error(`Migrations not found (looked in ${candidates.join(', ')})`);
  return found;
}

export interface OpenDatabaseOptions {
  /** postgres:// URL; when absent PGlite is used. */
  url?: string | undefined;
  /** PGlite data directory; when absent (and no url) the database lives in memory. */
  dataDir?: string | undefined;
  /** Pool size for PostgreSQL. */
  poolSize?: number;
  /** An empty, migrated PGlite data dir to copy when `dataDir` does not exist yet (fast first start). */
  templateDir?: string | undefined;
  /** Run PGlite in a worker thread, so its queries do not hold the server's event loop. */
  worker?: boolean;
}

type PgliteClient = Pick<PGlite, 'close'>;

async function openPglite(
  dataDir: string | undefined,
  templateDir: string | undefined,
  worker: boolean,
): Promise<PgliteClient> {
  const open = async (dir: string | undefined): Promise<PgliteClient> => {
    if (worker) return PgliteThread.open(dir);
    const client = dir ? new PGlite(dir) : new PGlite();
    await client.waitReady;
    return client;
  };
  if (!dataDir) return open(undefined);
  const fresh = !existsSync(path.join(dataDir, 'PG_VERSION'));
  if (fresh && templateDir && existsSync(path.join(templateDir, 'PG_VERSION'))) {
    // Copied beside it, then renamed: a start cut short mid-copy never leaves a half database behind.
    const copying = `${dataDir}.copying`;
    await rm(copying, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
    await mkdir(path.dirname(dataDir), { recursive: true });
    // A template built by another user is that user's alone (PostgreSQL's files are 0600): initdb instead.
    const uid = process.getuid?.();
    const readable = uid === undefined || uid === 0 || (await stat(templateDir)).uid === uid;
    if (readable) {
      await copyTree(templateDir, copying);
      await rename(copying, dataDir);
      try {
        return await open(dataDir);
      } catch {
        // A template from another PGlite build: start from an empty directory instead.
        await rm(dataDir, { recursive: true, force: true });
      }
    }
  }
  await mkdir(dataDir, { recursive: true });
  return open(dataDir);
}

/** Opens PGlite or PostgreSQL and applies every pending migration. */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const folder = migrationsFolder();
  if (options.url) {
    const pool = new pg.Pool({ connectionString: options.url, max: options.poolSize ?? 20 });
    const stats: QueryStats = { statements: 0, writes: 0 };
    const db = drizzlePg(pool, { schema, logger: countingLogger(stats) });
    try {
      await migratePg(db, { migrationsFolder: folder });
    } catch (error) {
      await pool.end();
      throw error;
    }
    return { db: db as unknown as Db, kind: 'postgres', stats, close: () => pool.end() };
  }
  const client = await openPglite(options.dataDir, options.templateDir, options.worker ?? false);
  const stats: QueryStats = { statements: 0, writes: 0 };
  // The worker's client has the part of PGlite's interface the driver uses (query, transaction).
  const db = drizzlePglite(client as PGlite, { schema, logger: countingLogger(stats) });
  try {
    await migratePglite(db, { migrationsFolder: folder });
  } catch (error) {
    await client.close();
    throw error;
  }
  return { db: db as unknown as Db, kind: 'pglite', stats, close: () => client.close() };
}
