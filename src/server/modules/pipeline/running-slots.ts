import type { Db } from '@/server/db/client.js';
import { AppError } from '@/server/lib/errors.js';
import { KeyedMutex } from '@/server/lib/keyed-mutex.js';
import { countActiveForUser } from './runs.repo.js';

/**
 * Each user's slots for active runs (five by default): a paused run keeps its slot, since it
 * resumes with one click. Counting and writing hold the user's lock, so simultaneous starts
 * cannot all pass the count.
 */
export class RunningSlots {
  private readonly locks = new KeyedMutex();

  constructor(
    private readonly db: Db,
    private readonly max: number,
  ) {}

  /**
   * Runs `setRunning` (which makes one of the user's runs running) only while the user has
   * fewer than the maximum active other than `ownRunId`, the paused run being resumed;
   * 429 TOO_MANY_PIPELINES otherwise.
   */
  take<T>(userId: string, setRunning: () => Promise<T>, ownRunId?: string): Promise<T> {
    return this.locks.run(userId, async () => {
      if ((await countActiveForUser(this.db, userId, ownRunId)) >= this.max) {
        throw new AppError('TOO_MANY_PIPELINES', 'Maximum concurrent pipelines reached');
      }
      return setRunning();
    });
  }
}
