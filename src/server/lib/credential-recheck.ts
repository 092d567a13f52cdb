import type { DatabaseKind } from '@/server/db/client.js';

/**
 * How long a session or an agent token found in PostgreSQL is trusted before it is asked for again:
 * other AutoCoder processes may share that database, and a logout or a revoke there deletes the row
 * without touching this process's caches, so theirs is refused within this long.
 */
export const CREDENTIAL_RECHECK_MS = 1000;

/**
 * The recheck for credentials kept in a database of this kind, in ms; null: none. PGlite is embedded
 * in this one process (nothing else opens its files while it runs), so a session there ends only by
 * a logout here or its expiry, and a token only by a revoke here: both drop the cache's entry.
 */
export const credentialRecheckFor = (kind: DatabaseKind): number | null =>
  kind === 'pglite' ? null : CREDENTIAL_RECHECK_MS;
