import { getPriority, setPriority } from 'node:os';

/**
 * The niceness of AutoCoder's helper processes (the git launcher and what it starts, the
 * import-graph parser). `git cat-file` readers (lib/git-objects.ts) keep the server's priority:
 * they answer a person's diff reads, which should not wait behind a run. On a busy machine the kernel then gives the CPU to the server's
 * event loop first, so SSE delivery and requests do not queue behind a run's commits or a graph
 * build; when the machine is idle the helpers run at full speed all the same.
 */
export const BACKGROUND_NICENESS = 10;

/**
 * Lowers a helper process's priority below the server's own (niceness + 10, at most 19); a failure
 * (the process already gone) changes nothing.
 */
export function runInBackground(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    setPriority(pid, Math.min(19, getPriority() + BACKGROUND_NICENESS));
  } catch {
    // The process exited already, or the platform refuses: it simply runs at normal priority.
  }
}
