import { inheritedPaths } from '@/server/env.js';
import { runCommand } from '@/server/lib/spawner.js';

/** How often a running step's worktree is measured. */
const MEASURE_EVERY_MS = 5_000;

/**
 * Bytes a tree takes on disk, its `.git` files and directories aside (`du`, through the launcher;
 * no link followed). Null when it could not be measured.
 */
export async function treeBytes(root: string): Promise<number | null> {
  const result = await runCommand({
    command: 'du',
    args: ['-s', '-B1', '-x', '--exclude=.git', '--', root],
    env: { PATH: inheritedPaths().path, LANG: 'C' },
    timeoutMs: 60_000,
    maxOutputBytes: 4096,
  }).catch(() => null);
  const bytes = Number.parseInt(result?.stdout.toString('utf8') ?? '', 10);
  return Number.isFinite(bytes) ? bytes : null;
}

export interface GrowthGuard {
  /** Measures once more; the reason when the tree grew past the cap since the start, else null. */
  finish(): Promise<string | null>;
}

/**
 * Watches how much a worktree grows during one step (a check, an agent's command): past `capBytes`
 * over what it held when the step began, `onOver` is told the reason (`the worktree grew by more
 * than 2048 MB in one step`) and the caller ends the step. Measured every 5 s and at the end, so a
 * step may overshoot by what it writes in 5 s; the size-capped /tmp and the memory limit bound the
 * rest of what a step can write.
 */
export async function guardGrowth(
  root: string,
  capBytes: number,
  onOver: (reason: string) => void,
): Promise<GrowthGuard> {
  const baseline = await treeBytes(root);
  const reason = `the worktree grew by more than ${Math.round(capBytes / 1024 / 1024)} MB in one step`;
  let over = false;
  let measuring = false;
  const check = async () => {
    if (baseline === null || over || measuring) return;
    measuring = true;
    const now = await treeBytes(root);
    measuring = false;
    if (now !== null && now - baseline > capBytes && !over) {
      over = true;
      onOver(reason);
    }
  };
  const timer = setInterval(() => void check(), MEASURE_EVERY_MS);
  timer.unref();
  return {
    async finish() {
      clearInterval(timer);
      await check();
      return over ? reason : null;
    },
  };
}
