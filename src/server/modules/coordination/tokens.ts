import { createHash, randomBytes } from 'node:crypto';
import type { AgentToken, CreatedAgentToken, CreateTokenInput } from '@/contracts/coordination.js';
import type { Db } from '@/server/db/client.js';
import { notFound } from '@/server/lib/errors.js';
import { LruCache } from '@/server/lib/lru-cache.js';
import { deleteToken, findTokenByHash, insertToken, listTokenRows } from './tokens.repo.js';

/** Every token starts with this, so a leaked one is easy to recognise (secret scanners, logs). */
export const TOKEN_PREFIX = 'acat_';

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

/** An agent: who takes locks. For a token, its id and name; for a signed-in user, the user. */
export interface Agent {
  id: string;
  name: string;
  /** The user whose projects the agent may coordinate on. */
  userId: string;
}

/** Creates a token: the answer is the only time its secret exists outside the agent. */
export async function createToken(
  db: Db,
  userId: string,
  input: CreateTokenInput,
): Promise<CreatedAgentToken> {
  const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const row = await insertToken(db, { userId, name: input.name, tokenHash: hashOf(token) });
  return { id: row.id, name: row.name, token };
}

export async function listTokens(db: Db, userId: string): Promise<AgentToken[]> {
  return (await listTokenRows(db, userId)).map((row) => ({
    id: row.id,
    name: row.name,
    createdAt: row.createdAt.toISOString(),
  }));
}

/** Revokes a token at once (in this process; within a second in others). 404 when it is not the user's. */
export async function revokeToken(db: Db, userId: string, id: string): Promise<void> {
  const tokenHash = await deleteToken(db, userId, id);
  if (!tokenHash) throw notFound('NOT_FOUND', 'Token');
  recentTokensOf(db).delete(tokenHash);
}

/**
 * Tokens found in the last second, per database: an agent's burst of calls asks the database once.
 * A revoked token stops working at once here, and within a second in another process.
 */
const TOKEN_RECHECK_MS = 1000;
const recentTokens = new WeakMap<Db, LruCache<string, { agent: Agent; foundAt: number }>>();

function recentTokensOf(db: Db) {
  let cache = recentTokens.get(db);
  if (!cache) {
    cache = new LruCache(10_000);
    recentTokens.set(db, cache);
  }
  return cache;
}

/** The agent a bearer token names, or null when it is not a live token. */
export async function resolveToken(db: Db, token: string, now: number): Promise<Agent | null> {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 128) return null;
  const tokenHash = hashOf(token);
  const cache = recentTokensOf(db);
  const known = cache.get(tokenHash);
  if (known && now - known.foundAt < TOKEN_RECHECK_MS && now >= known.foundAt) return known.agent;
  const row = await findTokenByHash(db, tokenHash);
  if (!row) {
    cache.delete(tokenHash);
    return null;
  }
  const agent = { id: row.id, name: row.name, userId: row.userId };
  cache.set(tokenHash, { agent, foundAt: now });
  return agent;
}
