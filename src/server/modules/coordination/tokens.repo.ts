import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Db } from '@/server/db/client.js';
import { agentTokens } from '@/server/db/schema.js';

export type AgentTokenRow = typeof agentTokens.$inferSelect;

export async function insertToken(db: Db, values: { userId: string; name: string; tokenHash: string }) {
  const [row] = await db.insert(agentTokens).values(values).returning();
  if (!row) throw new Error('insert returned no row');
  return row;
}

export async function listTokenRows(db: Db, userId: string): Promise<AgentTokenRow[]> {
  return db
    .select()
    .from(agentTokens)
    .where(eq(agentTokens.userId, userId))
    .orderBy(asc(agentTokens.createdAt), asc(agentTokens.id));
}

/** Deletes the user's token; returns its hash, or null when the user has no such token. */
export async function deleteToken(db: Db, userId: string, id: string): Promise<string | null> {
  const [row] = await db
    .delete(agentTokens)
    .where(and(eq(agentTokens.id, id), eq(agentTokens.userId, userId)))
    .returning({ tokenHash: agentTokens.tokenHash });
  return row?.tokenHash ?? null;
}

export async function findTokenByHash(db: Db, tokenHash: string): Promise<AgentTokenRow | null> {
  const [row] = await db.select().from(agentTokens).where(eq(agentTokens.tokenHash, tokenHash)).limit(1);
  return row ?? null;
}

/** The tokens among these hashes that still exist (one statement for a batch of cached tokens). */
export async function findTokensByHashes(db: Db, tokenHashes: string[]): Promise<AgentTokenRow[]> {
  if (tokenHashes.length === 0) return [];
  return db.select().from(agentTokens).where(inArray(agentTokens.tokenHash, tokenHashes));
}
