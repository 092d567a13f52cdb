import type { LockStatus } from '@/contracts/coordination.js';

/** Locks are kept per project and branch. */
export interface LockScope {
  projectId: string;
  branch: string;
}

/** Who takes a lock: one agent identity (a token, a signed-in user, a pipeline run). */
export interface LockHolder {
  id: string;
  name: string;
}

/** One holder's lock on one file. Times are milliseconds since the epoch. */
export interface LockEntry {
  path: string;
  holder: LockHolder;
  status: LockStatus;
  message: string;
  agentHead: string | null;
  /** When it was last posted: re-posting refreshes it. */
  timestamp: number;
  /** `timestamp` + the TTL: from this instant on the lock no longer exists. */
  expiresAt: number;
}

export interface AcquireRequest {
  holder: LockHolder;
  paths: readonly string[];
  status: LockStatus;
  message: string;
  agentHead: string | null;
  now: number;
  ttlMs: number;
}

/** All the requested locks were taken, or none was: `conflicts` are the WRITING locks in the way. */
/**
 * A refusal names the live WRITING locks in the way and, of the request's paths, those whose lock the
 * holder lost to expiry (see `LockStore.lost`), in the same atomic step: the rules answer STOP when
 * one of those is in the way.
 */
export type AcquireResult = { ok: true } | { ok: false; conflicts: LockEntry[]; lost: string[] };

/** `released`: the paths the holder held (live); `taken`: the live WRITING locks of others on files it lost. */
export type ReleaseResult = { ok: true; released: string[] } | { ok: false; taken: LockEntry[] };

/** A lock the clean-up deleted, with where it was. */
export interface ExpiredLock {
  scope: LockScope;
  lock: LockEntry;
}

/**
 * The lock store: WRITING is exclusive per file, READING is shared and blocks nobody, a multi-file
 * acquire is all-or-nothing, locks expire passively at `expiresAt`. Every method is atomic with
 * respect to the others, across processes for a shared store.
 *
 * An expired lock stays stored (invisible to reads) until the clean-up (`sweep`) deletes and reports
 * it, so every expiry reaches the activity feed; only its holder's new post or release replaces it
 * sooner. A swept lock is remembered as lost by its holder (until that holder takes or releases the
 * file again, or a day passes), so the rules can answer STOP to an agent that comes back to a file
 * someone else took meanwhile.
 */
export interface LockStore {
  /** Takes (or refreshes) `holder`'s lock on every path, or on none when another holder WRITES one of them. */
  acquire(scope: LockScope, request: AcquireRequest): Promise<AcquireResult>;
  /** Drops `holderId`'s locks on `paths`; returns the paths it held (live). Others' locks are untouched. */
  release(scope: LockScope, holderId: string, paths: readonly string[], now: number): Promise<string[]>;
  /**
   * `release`, unless `holderId` lost its lock on one of `paths` to expiry (see `lost`) and another
   * holder now WRITES that file: then nothing changes and those locks are answered (the rules' STOP).
   * One step, so that an OPEN costs a shared store one round trip, not two.
   */
  releaseUnlessTaken(
    scope: LockScope,
    holderId: string,
    paths: readonly string[],
    now: number,
  ): Promise<ReleaseResult>;
  /** Live locks on `paths`, every holder's. */
  read(scope: LockScope, paths: readonly string[], now: number): Promise<LockEntry[]>;
  /** Every live lock of the scope. */
  list(scope: LockScope, now: number): Promise<LockEntry[]>;
  /** Of `paths`, those whose lock `holderId` lost to expiry and has not taken or released since. */
  lost(scope: LockScope, holderId: string, paths: readonly string[], now: number): Promise<string[]>;
  /** Deletes every expired lock, in every scope, and returns them. */
  sweep(now: number): Promise<ExpiredLock[]>;
  close(): Promise<void>;
}

/** How long a lost lock is remembered for STOP. */
export const LOST_MEMORY_MS = 24 * 60 * 60 * 1000;

export const isLive = (entry: { expiresAt: number }, now: number) => entry.expiresAt > now;

/** The scope as one string (branch names may hold `:`; the id never does). */
export const scopeKey = (scope: LockScope) => `${scope.projectId}:${encodeURIComponent(scope.branch)}`;

export function scopeOfKey(key: string): LockScope {
  const at = key.indexOf(':');
  return { projectId: key.slice(0, at), branch: decodeURIComponent(key.slice(at + 1)) };
}
