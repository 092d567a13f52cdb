import type { LockStatus } from '@/contracts/coordination.js';
import type { LockEntry, LockStore } from './lock-store.js';

/** A file's lock as the graph overlays it (seed 003, GET /api/graph `locks`). */
export interface OverlaidLock {
  user: string;
  user_name: string;
  status: LockStatus;
  message: string;
}

/** Of several holders of one file, the one to show: the writer, else the latest reader. */
export function shownLock(locks: readonly LockEntry[]): LockEntry | undefined {
  return locks.find((l) => l.status === 'WRITING') ?? [...locks].sort((a, b) => b.timestamp - a.timestamp)[0];
}

/**
 * Every live lock of a project's branch, one per file, for the graph's overlay: pass the result as
 * the graph routes' `locksFor`.
 */
export function locksForGraph(locks: LockStore, now: () => number) {
  return async (projectId: string, branch: string): Promise<Record<string, OverlaidLock>> => {
    const byPath = new Map<string, LockEntry[]>();
    for (const lock of await locks.list({ projectId, branch }, now())) {
      byPath.set(lock.path, [...(byPath.get(lock.path) ?? []), lock]);
    }
    const overlay: Record<string, OverlaidLock> = {};
    for (const [path, held] of byPath) {
      const lock = shownLock(held);
      if (lock) {
        overlay[path] = {
          user: lock.holder.id,
          user_name: lock.holder.name,
          status: lock.status,
          message: lock.message,
        };
      }
    }
    return overlay;
  };
}
