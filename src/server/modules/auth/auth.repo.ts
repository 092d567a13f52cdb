import { and, eq, gt, inArray, sql } from 'drizzle-orm';
import type { Db } from '@/server/db/client.js';
import { sessions, users } from '@/server/db/schema.js';

export async function findUserByEmail(db: Db, email: string) {
  const [row] = await db.select().from(users).where(eq(users.email, email)).limit(1);
  return row ?? null;
}

export async function insertUser(db: Db, values: { id: string; email: string; passwordHash: string }) {
  const [row] = await db.insert(users).values(values).returning();
  if (!row) throw new Error('insert returned no row');
  return row;
}

export async function insertSession(db: Db, values: { id: string; userId: string; expiresAt: Date }) {
  await db.insert(sessions).values(values);
}

function prepareFindSessionUser(db: Db) {
  return db
    .select({ id: users.id, email: users.email, createdAt: users.createdAt, expiresAt: sessions.expiresAt })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.id, sql.placeholder('sessionId')), gt(sessions.expiresAt, sql.placeholder('now'))))
    .limit(1)
    .prepare('find_session_user');
}

// Every signed-in request runs it: built once per database, and prepared once per connection.
const findSessionUserQueries = new WeakMap<Db, ReturnType<typeof prepareFindSessionUser>>();

export async function findSessionUser(db: Db, sessionId: string, now: Date) {
  let query = findSessionUserQueries.get(db);
  if (!query) {
    query = prepareFindSessionUser(db);
    findSessionUserQueries.set(db, query);
  }
  const [row] = await query.execute({ sessionId, now });
  return row ?? null;
}

export async function deleteSession(db: Db, sessionId: string) {
  await db.delete(sessions).where(eq(sessions.id, sessionId));
}

/** Of the given session ids, those that exist and have not expired (one query for any number). */
export async function liveSessionIds(db: Db, sessionIds: string[], now: Date): Promise<Set<string>> {
  if (sessionIds.length === 0) return new Set();
  const rows = await db
    .select({ id: sessions.id })
    .from(sessions)
    .where(and(inArray(sessions.id, sessionIds), gt(sessions.expiresAt, now)));
  return new Set(rows.map((row) => row.id));
}
