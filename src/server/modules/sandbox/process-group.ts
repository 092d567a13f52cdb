import type { ChildProcess } from 'node:child_process';
import { Readable } from 'node:stream';

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
  /** A limit of the sandbox ended it (`memory limit 2048 MB reached`). */
  limit?: string;
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

/** How long a stop waits for bwrap to tell its init's pid (it does so right after forking it). */
const INFO_WAIT_MS = 2_000;

/**
 * The host pid of a bwrap sandbox's init, from the JSON bwrap writes on its info fd (`{"child-pid":
 * N}`); null when it ends without one. The init leads the session the command runs in
 * (`--new-session`), and killing it kills every process of the sandbox's PID namespace.
 */
export function sandboxInitPid(child: ChildProcess): Promise<number | null> {
  const info = child.stdio[BWRAP_INFO_FD_INDEX];
  if (!(info instanceof Readable)) return Promise.resolve(null);
  return new Promise((resolve) => {
    let text = '';
    info.setEncoding('utf8');
    info.on('data', (chunk: string) => {
      if (text.length < 4096) text += chunk;
    });
    info.on('error', () => resolve(null));
    info.on('close', () => {
      const pid = /"child-pid"\s*:\s*(\d+)/.exec(text)?.[1];
      resolve(pid ? Number(pid) : null);
    });
  });
}

const BWRAP_INFO_FD_INDEX = 3;

/**
 * Ends a sandboxed process: SIGTERM, then SIGKILL once `graceMs` have passed. Resolves when the
 * leader has ended and its output is closed.
 *
 * With bwrap (`inner`: its init's pid), SIGTERM goes to the command's session inside the sandbox,
 * so the command can end cleanly, and the SIGKILL to the init kills the whole PID namespace. A
 * signal to bwrap itself would not do: bwrap dies at once, and a sandbox started a moment before
 * may not yet have armed `--die-with-parent`, leaving its command running with no parent (seen
 * under load). Without bwrap, or when bwrap never told its init, the signals go to the group the
 * child leads. Signals go only while the child has not ended: until bwrap has reaped its init,
 * that pid cannot belong to another process.
 */
export async function stopGroup(
  child: ChildProcess,
  exited: Promise<Exit>,
  graceMs: number,
  inner?: Promise<number | null>,
): Promise<void> {
  if (child.pid === undefined) return;
  const pid = child.pid;
  const running = () => child.exitCode === null && child.signalCode === null;
  let timer: NodeJS.Timeout | undefined;
  const initPid = inner
    ? await Promise.race([
        inner,
        new Promise<null>((resolve) => {
          timer = setTimeout(() => resolve(null), INFO_WAIT_MS);
        }),
      ])
    : null;
  clearTimeout(timer);
  if (running()) signalGroup(initPid ?? pid, 'SIGTERM');
  const forced = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      if (initPid !== null && running()) killProcess(initPid);
      signalGroup(pid, 'SIGKILL');
      resolve();
    }, graceMs);
  });
  await Promise.race([exited, forced]);
  clearTimeout(timer);
  await exited;
}

function killProcess(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}
