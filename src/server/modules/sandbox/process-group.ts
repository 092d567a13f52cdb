import type { ChildProcess } from 'node:child_process';

/** Sends `signal` to every process of the group `pid` leads; a group already gone is not an error. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

export interface Exit {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** The process could not be started (e.g. the program does not exist). */
  error?: string;
}

/**
 * Watches a child started with `detached: true` (so it leads a process group of its own) and
 * resolves once it has ended and its output is closed. When the leader ends, what it left behind
 * in its group (`sleep 1000 &`) is killed: a check must not outlive itself.
 */
export function watchGroup(child: ChildProcess): Promise<Exit> {
  return new Promise((resolve) => {
    let exit: Exit | undefined;
    child.once('exit', (exitCode, signal) => {
      exit = { exitCode, signal };
      if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
    });
    child.once('close', (exitCode, signal) => resolve(exit ?? { exitCode, signal }));
    child.once('error', (error) => {
      // A child that never started emits no 'exit'; one that did still closes normally.
      if (child.pid === undefined) resolve({ exitCode: null, signal: null, error: error.message });
    });
  });
}

/**
 * Ends a whole group: SIGTERM, then SIGKILL once `graceMs` have passed. Resolves when the leader
 * has ended and its output is closed.
 */
export async function stopGroup(child: ChildProcess, exited: Promise<Exit>, graceMs: number): Promise<void> {
  if (child.pid === undefined) return;
  const pid = child.pid;
  if (child.exitCode === null && child.signalCode === null) signalGroup(pid, 'SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const forced = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      signalGroup(pid, 'SIGKILL');
      resolve();
    }, graceMs);
  });
  await Promise.race([exited, forced]);
  clearTimeout(timer);
  await exited;
}
