import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

interface QueryResult {
  rows: unknown[];
  fields: { name: string; dataTypeID: number }[];
  affectedRows?: number;
}

interface QueryOptions {
  rowMode?: 'array' | 'object';
}

interface Reply {
  id: number;
  result?: QueryResult;
  error?: Record<string, string>;
}

/** The worker script, beside this file in source (src/server/db) and in the bundle (dist/server). */
function workerFile(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.join(here, 'pglite-worker.mjs'), path.join(here, 'db', 'pglite-worker.mjs')];
  const found = candidates.find((candidate) => existsSync(candidate));
  if (!found) throw new Error(`PGlite worker not found (looked in ${candidates.join(', ')})`);
  return found;
}

/** A worker's error as an Error carrying the same fields (code 23505 and so on). */
function toError(fields: Record<string, string>): Error {
  return Object.assign(new Error(fields.message), fields);
}

/**
 * PGlite running in a worker thread, with the part of PGlite's interface that drizzle's PGlite
 * driver uses (`query`, `transaction`, `close`). A transaction holds the one connection: queries
 * from outside it wait until it ends, as they do inside PGlite itself.
 */
export class PgliteThread {
  private readonly pending = new Map<
    number,
    { resolve: (r: QueryResult) => void; reject: (e: Error) => void }
  >();
  private nextId = 1;
  private inTransaction: Promise<void> | null = null;
  private failed: Error | null = null;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (reply: Reply) => {
      const waiter = this.pending.get(reply.id);
      if (!waiter) return;
      this.pending.delete(reply.id);
      if (reply.error) waiter.reject(toError(reply.error));
      else waiter.resolve(reply.result as QueryResult);
    });
    const fail = (error: Error) => {
      this.failed = error;
      for (const waiter of this.pending.values()) waiter.reject(error);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error('the PGlite worker has stopped')));
  }

  /** Starts the worker on `dataDir` (in memory when absent) and waits until the database is open. */
  static async open(dataDir: string | undefined): Promise<PgliteThread> {
    const worker = new Worker(workerFile(), { workerData: { dataDir } });
    const ready = await new Promise<{ ready: boolean; error?: Record<string, string> }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    if (!ready.ready) {
      await worker.terminate();
      throw toError(ready.error ?? { message: 'PGlite could not open its data directory' });
    }
    return new PgliteThread(worker);
  }

  private send(message: Record<string, unknown>): Promise<QueryResult> {
    if (this.failed) return Promise.reject(this.failed);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, ...message });
    });
  }

  private run(sql: string, params: unknown[] = [], options: QueryOptions = {}) {
    return this.send({ sql, params, rowMode: options.rowMode ?? 'object' });
  }

  async query(sql: string, params?: unknown[], options?: QueryOptions): Promise<QueryResult> {
    while (this.inTransaction) await this.inTransaction;
    return this.run(sql, params, options);
  }

  async transaction<T>(fn: (tx: { query: PgliteThread['run'] }) => Promise<T>): Promise<T> {
    while (this.inTransaction) await this.inTransaction;
    let end: () => void = () => {};
    this.inTransaction = new Promise((resolve) => {
      end = resolve;
    });
    const tx = {
      query: (sql: string, params?: unknown[], options?: QueryOptions) => this.run(sql, params, options),
    };
    try {
      await this.run('BEGIN');
      const result = await fn(tx);
      await this.run('COMMIT');
      return result;
    } catch (error) {
      await this.run('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      this.inTransaction = null;
      end();
    }
  }

  async close(): Promise<void> {
    if (!this.failed) await this.send({ close: true }).catch(() => undefined);
    await this.worker.terminate();
  }
}
