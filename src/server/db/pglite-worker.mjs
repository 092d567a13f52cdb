// PGlite in a worker thread: its queries (WASM, synchronous inside) run here, not on the server's
// event loop. Plain JavaScript so that Node runs it as it is, from source and from dist/server alike.
// Protocol: { id, sql, params, rowMode } → { id, result } or { id, error }; { id, close: true } closes.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, types } from '@electric-sql/pglite';

// The same raw-text parsers drizzle's PGlite driver asks for (it parses these types itself).
const raw = (value) => value;
const PARSERS = Object.fromEntries(
  [types.TIMESTAMP, types.TIMESTAMPTZ, types.INTERVAL, types.DATE, 1231, 1115, 1185, 1187, 1182].map(
    (oid) => [oid, raw],
  ),
);

/** The fields a caller may test (code 23505 and the like), as a plain object that crosses threads. */
function plainError(error) {
  const out = { message: error instanceof Error ? error.message : String(error) };
  if (error && typeof error === 'object') {
    for (const key of ['name', 'code', 'detail', 'hint', 'constraint', 'table', 'column', 'severity']) {
      if (typeof error[key] === 'string') out[key] = error[key];
    }
  }
  return out;
}

let db;
try {
  db = workerData.dataDir ? new PGlite(workerData.dataDir) : new PGlite();
  await db.waitReady;
  parentPort.postMessage({ ready: true });
} catch (error) {
  parentPort.postMessage({ ready: false, error: plainError(error) });
  process.exit(0);
}

parentPort.on('message', async (message) => {
  if (message.close) {
    await db.close().catch(() => undefined);
    parentPort.postMessage({ id: message.id, result: null });
    parentPort.close();
    return;
  }
  try {
    const result = await db.query(message.sql, message.params, {
      rowMode: message.rowMode,
      parsers: PARSERS,
    });
    parentPort.postMessage({
      id: message.id,
      result: { rows: result.rows, fields: result.fields, affectedRows: result.affectedRows },
    });
  } catch (error) {
    parentPort.postMessage({ id: message.id, error: plainError(error) });
  }
});
