import {
  type AcquireRequest,
  type AcquireResult,
  type ExpiredLock,
  isLive,
  LOST_MEMORY_MS,
  type LockEntry,
  type LockScope,
  type LockStore,
  type ReleaseResult,
  scopeKey,
  scopeOfKey,
} from './lock-store.js';

interface Scope {
  /** path → holder id → lock */
  files: Map<string, Map<string, LockEntry>>;
  /** `path\0holderId` → when that holder's lock expired */
  lost: Map<string, number>;
}

const lostKey = (path: string, holderId: string) => `${path}\0${holderId}`;

/**
 * The lock store of one process (the default). Every method runs to completion without awaiting,
 * so each is atomic with respect to the others.
 */
export function createMemoryLockStore(): LockStore {
  const scopes = new Map<string, Scope>();

  const scopeOf = (scope: LockScope, create: boolean): Scope | undefined => {
    const key = scopeKey(scope);
    let entry = scopes.get(key);
    if (!entry && create) {
      entry = { files: new Map(), lost: new Map() };
      scopes.set(key, entry);
    }
    return entry;
  };

  const release = (scope: LockScope, holderId: string, paths: readonly string[], now: number) => {
    const state = scopeOf(scope, false);
    if (!state) return [];
    const released: string[] = [];
    for (const path of paths) {
      const holders = state.files.get(path);
      const lock = holders?.get(holderId);
      if (lock && isLive(lock, now)) released.push(path);
      holders?.delete(holderId);
      if (holders?.size === 0) state.files.delete(path);
      state.lost.delete(lostKey(path, holderId));
    }
    return released;
  };

  /** A live WRITING lock of someone other than `holderId`: what blocks a WRITING acquire. */
  const writtenByOther = (lock: LockEntry, holderId: string, now: number) =>
    lock.holder.id !== holderId && lock.status === 'WRITING' && isLive(lock, now);

  /** Whether `holderId`'s lock on `path` expired and it has not taken or released the file since. */
  const isLost = (state: Scope, holderId: string, path: string, now: number) => {
    const lock = state.files.get(path)?.get(holderId);
    return lock ? !isLive(lock, now) : state.lost.has(lostKey(path, holderId));
  };

  return {
    async acquire(scope, request: AcquireRequest): Promise<AcquireResult> {
      const state = scopeOf(scope, true) as Scope;
      const { holder, now } = request;
      if (request.status === 'WRITING') {
        const conflicts: LockEntry[] = [];
        for (const path of request.paths) {
          for (const lock of state.files.get(path)?.values() ?? []) {
            if (writtenByOther(lock, holder.id, now)) conflicts.push({ ...lock });
          }
        }
        if (conflicts.length > 0) {
          const lost = [...new Set(request.paths)].filter((path) => isLost(state, holder.id, path, now));
          return { ok: false, conflicts, lost };
        }
      }
      for (const path of request.paths) {
        let holders = state.files.get(path);
        if (!holders) {
          holders = new Map();
          state.files.set(path, holders);
        }
        holders.set(holder.id, {
          path,
          holder: { ...holder },
          status: request.status,
          message: request.message,
          agentHead: request.agentHead,
          timestamp: now,
          expiresAt: now + request.ttlMs,
        });
        state.lost.delete(lostKey(path, holder.id));
      }
      return { ok: true };
    },

    async release(scope, holderId, paths, now) {
      return release(scope, holderId, paths, now);
    },

    async releaseUnlessTaken(scope, holderId, paths, now): Promise<ReleaseResult> {
      const state = scopeOf(scope, false);
      const taken: LockEntry[] = [];
      for (const path of new Set(paths)) {
        if (!state || !isLost(state, holderId, path, now)) continue;
        for (const lock of state.files.get(path)?.values() ?? []) {
          if (writtenByOther(lock, holderId, now)) taken.push({ ...lock });
        }
      }
      if (taken.length > 0) return { ok: false, taken };
      return { ok: true, released: release(scope, holderId, paths, now) };
    },

    async read(scope, paths, now) {
      const state = scopeOf(scope, false);
      if (!state) return [];
      return paths.flatMap((path) =>
        [...(state.files.get(path)?.values() ?? [])]
          .filter((lock) => isLive(lock, now))
          .map((l) => ({ ...l })),
      );
    },

    async list(scope, now) {
      const state = scopeOf(scope, false);
      if (!state) return [];
      return [...state.files.values()].flatMap((holders) =>
        [...holders.values()].filter((lock) => isLive(lock, now)).map((l) => ({ ...l })),
      );
    },

    async lost(scope, holderId, paths, now) {
      const state = scopeOf(scope, false);
      if (!state) return [];
      return paths.filter((path) => isLost(state, holderId, path, now));
    },

    async sweep(now) {
      const expired: ExpiredLock[] = [];
      for (const [key, state] of scopes) {
        const scope = scopeOfKey(key);
        for (const [path, holders] of state.files) {
          for (const [id, lock] of holders) {
            if (isLive(lock, now)) continue;
            holders.delete(id);
            state.lost.set(lostKey(path, id), lock.expiresAt);
            expired.push({ scope, lock });
          }
          if (holders.size === 0) state.files.delete(path);
        }
        for (const [lost, at] of state.lost) if (at + LOST_MEMORY_MS <= now) state.lost.delete(lost);
        if (state.files.size === 0 && state.lost.size === 0) scopes.delete(key);
      }
      return expired;
    },

    async close() {},
  };
}
