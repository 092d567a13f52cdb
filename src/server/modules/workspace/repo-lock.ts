import path from 'node:path';
import { KeyedMutex } from '@/server/lib/keyed-mutex.js';

const locks = new KeyedMutex();

/**
 * Runs `fn` while holding an in-process mutex for one repository. Git operations that touch
 * shared state of the repository — `.git/config`, `packed-refs`, the main index, the worktree
 * list — take it (worktree add/remove, merges); commits inside separate worktrees need none.
 *
 * Holders run one at a time in call order. The lock is not re-entrant: calling `withRepoLock`
 * for the same repository inside `fn` deadlocks, so module entry points take it and their
 * helpers do not. It only orders work within this process; several processes serving one data
 * directory need a shared lock store instead.
 */
export function withRepoLock<T>(repoPath: string, fn: () => Promise<T>): Promise<T> {
  return locks.run(path.resolve(repoPath), fn);
}
