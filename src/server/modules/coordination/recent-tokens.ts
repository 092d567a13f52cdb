import type { Db } from '@/server/db/client.js';
import { CREDENTIAL_RECHECK_MS } from '@/server/lib/credential-recheck.js';
import { LruCache } from '@/server/lib/lru-cache.js';
import { type AgentTokenRow, findTokenByHash, findTokensByHashes } from './tokens.repo.js';

/** An agent: who takes locks. For a token, its id and name; for a signed-in user, the user. */
export interface Agent {
  id: string;
  name: string;
  /** The user whose projects the agent may coordinate on. */
  userId: string;
}

/**
 * A token unused this long is dropped rather than confirmed again. How long a token is trusted is
 * the caller's `recheckMs` (`credentialRecheckFor`): a token revoked in this process stops working
 * at once; one revoked in another process (or deleted by hand) works at most that long after it was
 * last confirmed; on PGlite (null) a token is revoked here or not at all.
 */
const FORGET_UNUSED_MS = 30 * CREDENTIAL_RECHECK_MS;
/** Hashes per confirming statement. */
const BATCH = 500;

interface Known {
  agent: Agent;
  /** App clock: when the database last said the token exists. */
  confirmedAt: number;
  usedAt: number;
}

const agentOf = (row: AgentTokenRow): Agent => ({ id: row.id, name: row.name, userId: row.userId });

/**
 * The tokens of one database seen lately. A token is confirmed again once it is `recheckMs`
 * old; when one is due, every cached token at least half that old is confirmed with it in one
 * statement, so 50 busy agents cost about two statements a second, not 50.
 */
export class RecentTokens {
  readonly #known = new LruCache<string, Known>(10_000);
  /** Bumped by every revoke: a lookup that started before one does not store what it read. */
  #generation = 0;
  #confirming: Promise<void> | null = null;

  constructor(private readonly db: Db) {}

  /**
   * The agent of a token hash, or null when the database has no such token. A known token is
   * confirmed again once `recheckMs` old; null: never (only a revoke here ends it).
   */
  async lookup(tokenHash: string, now: number, recheckMs: number | null): Promise<Agent | null> {
    const fresh = this.#fresh(tokenHash, now, recheckMs);
    if (fresh) return fresh;
    // Known but not fresh: only with a recheck (null keeps a known token fresh).
    if (recheckMs !== null && this.#known.get(tokenHash)) {
      await this.#confirmDue(now, recheckMs);
      const confirmed = this.#fresh(tokenHash, now, recheckMs);
      if (confirmed) return confirmed;
    }
    const generation = this.#generation;
    const row = await findTokenByHash(this.db, tokenHash);
    if (!row) {
      this.#known.delete(tokenHash);
      return null;
    }
    const agent = agentOf(row);
    if (generation === this.#generation) this.#known.set(tokenHash, { agent, confirmedAt: now, usedAt: now });
    return agent;
  }

  /** The token was revoked here: it stops working at once. */
  forget(tokenHash: string): void {
    this.#generation += 1;
    this.#known.delete(tokenHash);
  }

  #fresh(tokenHash: string, now: number, recheckMs: number | null): Agent | null {
    const known = this.#known.get(tokenHash);
    if (!known) return null;
    if (recheckMs !== null && (now < known.confirmedAt || now - known.confirmedAt >= recheckMs)) return null;
    known.usedAt = now;
    return known.agent;
  }

  /** Confirms every token at least half due, in one statement per BATCH; one run at a time. */
  #confirmDue(now: number, recheckMs: number): Promise<void> {
    this.#confirming ??= this.#confirm(now, recheckMs).finally(() => {
      this.#confirming = null;
    });
    return this.#confirming;
  }

  async #confirm(now: number, recheckMs: number): Promise<void> {
    const due: [string, Known][] = [];
    for (const [hash, known] of [...this.#known.entries()]) {
      if (now - known.usedAt >= FORGET_UNUSED_MS) this.#known.delete(hash);
      else if (now < known.confirmedAt || now - known.confirmedAt >= recheckMs / 2) due.push([hash, known]);
    }
    for (let i = 0; i < due.length; i += BATCH) {
      const batch = due.slice(i, i + BATCH);
      const rows = await findTokensByHashes(
        this.db,
        batch.map(([hash]) => hash),
      );
      const alive = new Map(rows.map((row) => [row.tokenHash, row]));
      for (const [hash, known] of batch) {
        const row = alive.get(hash);
        if (!row) {
          // Revoked elsewhere. Only the entry this run read may go: a newer one is not its to drop.
          if (this.#known.get(hash) === known) this.#known.delete(hash);
          continue;
        }
        // In place: an entry revoked meanwhile is no longer in the cache, and stays out.
        known.agent = agentOf(row);
        known.confirmedAt = now;
      }
    }
  }
}

const recent = new WeakMap<Db, RecentTokens>();

export function recentTokensOf(db: Db): RecentTokens {
  let tokens = recent.get(db);
  if (!tokens) {
    tokens = new RecentTokens(db);
    recent.set(db, tokens);
  }
  return tokens;
}
