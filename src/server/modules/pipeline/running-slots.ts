import { sql } from 'drizzle-orm';
import type { Db } from '@/server/db/client.js';
import { AppError } from '@/server/lib/errors.js';
import { KeyedMutex } from '@/server/lib/keyed-mutex.js';
import { countActiveForUser } from './runs.repo.js';

/**
 * Writes the statement that makes a run active, with the database handle to write it with: the
 * transaction in which its slot was counted (run-transitions.ts takes one for start, resume and
 * reopen). Nothing else may be awaited in it.
 */
export type SlotWrite = <T>(write: (db: Db) => Promise<T>) => Promise<T>;

/**
 * Each user's slots for active runs (five by default): a paused run keeps its slot, since it
 * resumes with one click.
 *
 * The count and the write that takes a slot are one transaction under a lock on the user's slots
 * in the database (a transaction-scoped advisory lock), so simultaneous starts cannot all pass the
 * count: not in one process, nor in several over one PostgreSQL. The lock is taken in a statement
 * of its own before the count, so the count's snapshot sees every write committed under it. In one
 * process the user's starts also queue here first, so they do not hold a pooled connection each
 * while they wait for the lock.
 */
export class RunningSlots {
  private readonly queue = new KeyedMutex();

  constructor(
    private readonly db: Db,
    private readonly max: number,
  ) {}

  /**
   * A SlotWrite that writes only while the user has fewer than the maximum active runs other than
   * `ownRunId` (the paused run being resumed); 429 TOO_MANY_PIPELINES otherwise.
   */
  for(userId: string, ownRunId?: string): SlotWrite {
    return (write) =>
      this.queue.run(userId, () =>
        this.db.transaction(async (tx) => {
          await tx.execute(
            sql`select pg_advisory_xact_lock(hashtextextended(${`running-slots:${userId}`}, 0))`,
          );
          if ((await countActiveForUser(tx, userId, ownRunId)) >= this.max) {
            throw new AppError('TOO_MANY_PIPELINES', 'Maximum concurrent pipelines reached');
          }
          return write(tx);
        }),
      );
  }
}
