import path from 'node:path';

/** The tail of each repository's queue: resolves when the last holder releases. */
const tails = new Map<string, Promise<void>>();

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
export async function withRepoLock<T>(repoPath: string, fn: () => Promise<T>): Promise<T> {
  const key = path.resolve(repoPath);
  const previous = tails.get(key) ?? Promise.resolve();
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => held);
  tails.set(key, tail);
  await previous;
  try {
    return await fn();
  } finally {
    release();
    if (tails.get(key) === tail) tails.delete(key);
  }
}
