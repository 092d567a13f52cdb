import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentTokens } from '@/server/db/schema.js';
import { CREDENTIAL_RECHECK_MS } from '@/server/lib/credential-recheck.js';
import { createTestApp, signedInClient, type TestApp } from '@/server/testing/test-app.js';
import { recentTokensOf } from './recent-tokens.js';
import { createToken, resolveToken, revokeToken } from './tokens.js';

/** The tokens cache behind every agent call: how long a revoked token may live on, and its cost. */
let t: TestApp;
let userId: string;
beforeAll(async () => {
  t = await createTestApp();
  userId = (await signedInClient(t.app)).userId;
});
afterAll(() => t.close());

const db = () => t.database.db;
// The clock is the caller's: each test starts far from the others, so no entry of theirs is fresh.
let epoch = 1_000_000_000_000;
const clock = () => {
  epoch += 1_000_000;
  return epoch;
};
const deleteRow = (id: string) => db().delete(agentTokens).where(eq(agentTokens.id, id));
/** As on PostgreSQL, whose tokens may be revoked by other processes. */
const resolve = (token: string, now: number) => resolveToken(db(), token, now, CREDENTIAL_RECHECK_MS);

describe('agent tokens on an embedded database', () => {
  it('are trusted until revoked here: nothing else can revoke them', async () => {
    const now = clock();
    const created = await createToken(db(), userId, { name: 'embedded' });
    expect(await resolveToken(db(), created.token, now, null)).toMatchObject({ id: created.id });
    const statements = t.database.stats.statements;
    expect(await resolveToken(db(), created.token, now + 60 * 60 * 1000, null)).toMatchObject({
      id: created.id,
    });
    expect(t.database.stats.statements, 'an hour on, still no lookup').toBe(statements);
    await revokeToken(db(), userId, created.id);
    expect(await resolveToken(db(), created.token, now + 60 * 60 * 1000, null)).toBeNull();
  });
});

describe('agent tokens, cached', () => {
  it('stops a token revoked here at once', async () => {
    const now = clock();
    const created = await createToken(db(), userId, { name: 'here' });
    expect(await resolve(created.token, now)).toMatchObject({ id: created.id, userId });
    await revokeToken(db(), userId, created.id);
    expect(await resolve(created.token, now)).toBeNull();
  });

  it('stops a token deleted elsewhere (another process) CREDENTIAL_RECHECK_MS after it was confirmed', async () => {
    const now = clock();
    const created = await createToken(db(), userId, { name: 'elsewhere' });
    expect(await resolve(created.token, now)).not.toBeNull();
    await deleteRow(created.id);
    // The chosen staleness: trusted until CREDENTIAL_RECHECK_MS after the database last said so.
    expect(await resolve(created.token, now + CREDENTIAL_RECHECK_MS - 1)).not.toBeNull();
    expect(await resolve(created.token, now + CREDENTIAL_RECHECK_MS)).toBeNull();
    expect(await resolve(created.token, now)).toBeNull();
  });

  it('does not keep what a lookup read before a revoke that overtook it', async () => {
    const now = clock();
    const created = await createToken(db(), userId, { name: 'raced' });
    const tokenHash = createHash('sha256').update(created.token).digest('hex');
    const recent = recentTokensOf(db());
    // The revoke lands while the lookup waits for the database: what it read must not be kept.
    const lookup = recent.lookup(tokenHash, now, CREDENTIAL_RECHECK_MS);
    recent.forget(tokenHash);
    expect(await lookup).toMatchObject({ id: created.id });
    const before = t.database.stats.statements;
    await recent.lookup(tokenHash, now, CREDENTIAL_RECHECK_MS);
    expect(t.database.stats.statements - before).toBe(1);
  });

  it('confirms the busy tokens with one statement, and drops those deleted meanwhile', async () => {
    const now = clock();
    const tokens = [];
    for (let i = 0; i < 20; i++) tokens.push(await createToken(db(), userId, { name: `agent ${i}` }));
    for (const { token } of tokens) expect(await resolve(token, now)).not.toBeNull();
    const [gone] = tokens;
    if (!gone) throw new Error('no token');
    await deleteRow(gone.id);

    const stats = t.database.stats;
    const before = stats.statements;
    const later = now + CREDENTIAL_RECHECK_MS;
    const agents = [];
    for (const { token } of tokens.slice(1)) agents.push(await resolve(token, later));
    expect(agents.map((agent) => agent?.name)).toEqual(tokens.slice(1).map((token) => token.name));
    // One statement confirmed the 19 live tokens and found the deleted one missing…
    expect(stats.statements - before).toBe(1);
    // …so it is refused with the one statement that looks it up afresh.
    expect(await resolve(gone.token, later)).toBeNull();
    expect(stats.statements - before).toBe(2);
    // Within the window again: no statement at all.
    for (const { token } of tokens.slice(1)) await resolve(token, later + 1);
    expect(stats.statements - before).toBe(2);
  });
});
