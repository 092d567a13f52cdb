import { randomBytes } from 'node:crypto';
import type { AgentToken, CreatedAgentToken, CreateTokenInput } from '@/contracts/coordination.js';
import type { Db } from '@/server/db/client.js';
import { notFound } from '@/server/lib/errors.js';
import { sha256Hex as hashOf } from '@/server/lib/sha256.js';
import { type Agent, recentTokensOf } from './recent-tokens.js';
import { deleteToken, insertToken, listTokenRows } from './tokens.repo.js';

/** Every token starts with this, so a leaked one is easy to recognise (secret scanners, logs). */
export const TOKEN_PREFIX = 'acat_';

export type { Agent } from './recent-tokens.js';

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

/** Revokes a token at once (in this process; within CREDENTIAL_RECHECK_MS in others sharing PostgreSQL). 404 when it is not the user's. */
export async function revokeToken(db: Db, userId: string, id: string): Promise<void> {
  const tokenHash = await deleteToken(db, userId, id);
  if (!tokenHash) throw notFound('NOT_FOUND', 'Token');
  recentTokensOf(db).forget(tokenHash);
}

/**
 * The agent a bearer token names, or null when it is not a live token (see recent-tokens.ts); a
 * token found is trusted `recheckMs` (null: until revoked here), as `credentialRecheckFor` gives it.
 */
export async function resolveToken(
  db: Db,
  token: string,
  now: number,
  recheckMs: number | null,
): Promise<Agent | null> {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 128) return null;
  return recentTokensOf(db).lookup(hashOf(token), now, recheckMs);
}
