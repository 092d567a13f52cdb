import type { Logger } from '@/server/lib/logger.js';
import { projectStream } from '../events/bus.js';
import type { EventLog } from '../events/event-log.js';
import type { ExpiredLock, LockStore } from './lock-store.js';

export const LOCK_SWEEP_INTERVAL_MS = 60_000;

export interface LockSweepDeps {
  locks: LockStore;
  events: Pick<EventLog, 'append'>;
  logger: Logger;
  now: () => number;
}

/**
 * The clean-up (seed 003 §4): deletes every expired lock, and for each holder whose locks expired
 * in a project and branch, writes one `lock-expired` event to the project's stream (the status log,
 * persisted, and the live feed). Returns what it deleted.
 */
export async function sweepExpiredLocks(deps: LockSweepDeps): Promise<ExpiredLock[]> {
  const now = deps.now();
  const expired = await deps.locks.sweep(now);
  const groups = new Map<string, ExpiredLock[]>();
  for (const entry of expired) {
    const key = JSON.stringify([entry.scope.projectId, entry.scope.branch, entry.lock.holder.id]);
    groups.set(key, [...(groups.get(key) ?? []), entry]);
  }
  for (const group of groups.values()) {
    const first = group[0];
    if (!first) continue;
    const { scope, lock } = first;
    deps.logger.info('locks expired', {
      projectId: scope.projectId,
      branch: scope.branch,
      agent: lock.holder.id,
      files: group.length,
    });
    await deps.events.append(projectStream(scope.projectId), {
      type: 'lock-expired',
      data: {
        branch: scope.branch,
        agent: { ...lock.holder },
        files: group.map((entry) => entry.lock.path),
        message: lock.message,
        timestamp: now,
      },
    });
  }
  return expired;
}

/** Runs the clean-up every minute until stopped; a failed round is logged and the next one runs. */
export function startLockSweeper(deps: LockSweepDeps, intervalMs = LOCK_SWEEP_INTERVAL_MS): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    sweepExpiredLocks(deps)
      .catch((error: unknown) => deps.logger.error('lock clean-up failed', { error }))
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
