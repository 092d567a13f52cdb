import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { type AvailableCgroups, exists } from './cgroups-probe.js';

/** What one sandbox may use. */
export interface SandboxLimits {
  memoryMb: number;
  /** Processes and threads together: the kernel counts every task. */
  pids: number;
  /** CPU time as a number of CPUs (1.5: one and a half CPUs' worth per period). */
  cpus: number;
}

export interface SandboxCgroup {
  /** The `cgroup.procs` files a process writes its pid into to enter the group: one per hierarchy. */
  procsFiles: string[];
  /** Why the sandbox ended, if a limit ended it: `memory limit 2048 MB reached`, `process limit 512 reached`. */
  outcome(): Promise<string | null>;
  /**
   * Checks for a limit every `intervalMs`; on the first one, calls `onLimit` with the reason and ends
   * every process of the group (`killed` settles when they are gone). A fork bomb stopped by the process
   * limit would otherwise sit at the limit until its timeout. Returns a function that stops watching.
   */
  watch(onLimit: (reason: string, killed: Promise<void>) => void, intervalMs?: number): () => void;
  /** SIGKILLs every process in the group (v2: cgroup.kill) and waits until none is left. */
  killAll(): Promise<void>;
  /** Ends what is left, then removes the group's directories; a group already gone is not an error. */
  remove(): Promise<void>;
}

const CPU_PERIOD_US = 100_000;
/** How long killAll and remove wait for killed processes to leave the group before giving up. */
const EMPTY_DEADLINE_MS = 10_000;

const errorCode = (error: unknown) => (error as NodeJS.ErrnoException).code;

const ignoreGone = (error: unknown) => {
  if (errorCode(error) !== 'ENOENT') throw error;
};

/** The file's text, or null when the group is gone. */
async function readIfThere(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return null;
    throw error;
  }
}

/** `key value` lines (memory.events, pids.events, memory.oom_control): the value of `key`, 0 if absent. */
export function eventCount(text: string | null, key: string): number {
  const match = text ? new RegExp(`^${key} (\\d+)$`, 'm').exec(text) : null;
  return match ? Number(match[1]) : 0;
}

function cpuQuotaUs(cpus: number): number {
  return Math.max(1000, Math.round(cpus * CPU_PERIOD_US));
}

/** Writes the limits; each file is written in its hierarchy's directory. */
async function writeLimits(
  version: 1 | 2,
  dirs: { memory: string; pids: string; cpu: string },
  limits: SandboxLimits,
): Promise<void> {
  const bytes = String(limits.memoryMb * 1024 * 1024);
  const optional = async (file: string, value: string) => {
    if (await exists(file)) await writeFile(file, value);
  };
  if (version === 2) {
    await writeFile(path.join(dirs.memory, 'memory.max'), bytes);
    // Without swap.max at 0 a process could page out past the limit instead of being stopped.
    await optional(path.join(dirs.memory, 'memory.swap.max'), '0');
    // An OOM kill ends the whole sandbox, as the watcher does under v1.
    await optional(path.join(dirs.memory, 'memory.oom.group'), '1');
    await writeFile(path.join(dirs.pids, 'pids.max'), String(limits.pids));
    await writeFile(path.join(dirs.cpu, 'cpu.max'), `${cpuQuotaUs(limits.cpus)} ${CPU_PERIOD_US}`);
    return;
  }
  // v1 memory.oom_control stays as it is: the OOM killer enabled, so a process past the limit is killed
  // rather than frozen. memsw (memory + swap) must be written after limit_in_bytes, never below it.
  await writeFile(path.join(dirs.memory, 'memory.limit_in_bytes'), bytes);
  await optional(path.join(dirs.memory, 'memory.memsw.limit_in_bytes'), bytes);
  await writeFile(path.join(dirs.pids, 'pids.max'), String(limits.pids));
  await writeFile(path.join(dirs.cpu, 'cpu.cfs_period_us'), String(CPU_PERIOD_US));
  try {
    await writeFile(path.join(dirs.cpu, 'cpu.cfs_quota_us'), String(cpuQuotaUs(limits.cpus)));
  } catch (error) {
    // v1 refuses a child quota above an ancestor's: the host's own, lower limit applies then.
    if (errorCode(error) !== 'EINVAL') throw error;
  }
}

const ID = /^[A-Za-z0-9_.-]{1,100}$/;

/**
 * Creates the cgroup of sandbox `id` (letters, digits, `_`, `-`, `.`) under every hierarchy of the
 * probe and writes its limits. Enter a process with `cgroupEntryArgv(group.procsFiles, argv)`; call
 * `remove()` when the sandbox has ended. Throws when the group exists already or cannot be made.
 */
export async function createSandboxCgroup(
  cgroups: AvailableCgroups,
  id: string,
  limits: SandboxLimits,
): Promise<SandboxCgroup> {
  if (!ID.test(id) || id.startsWith('.')) throw new Error(`not a cgroup name: ${JSON.stringify(id)}`);
  const dirs = {
    memory: path.join(cgroups.parents.memory, id),
    pids: path.join(cgroups.parents.pids, id),
    cpu: path.join(cgroups.parents.cpu, id),
  };
  const unique = [...new Set(Object.values(dirs))];
  const procsFiles = unique.map((dir) => path.join(dir, 'cgroup.procs'));

  const pidsIn = async (): Promise<number[]> => {
    const all = new Set<number>();
    for (const file of procsFiles) {
      for (const word of ((await readIfThere(file)) ?? '').split('\n')) if (word) all.add(Number(word));
    }
    return [...all];
  };

  const killAll = async (): Promise<void> => {
    const killFile = path.join(dirs.pids, 'cgroup.kill');
    const atOnce = cgroups.version === 2 && (await exists(killFile));
    const deadline = Date.now() + EMPTY_DEADLINE_MS;
    for (let round = 0; ; round += 1) {
      // cgroup.kill ends the group at once, forks in flight included.
      if (atOnce) await writeFile(killFile, '1').catch(ignoreGone);
      const pids = await pidsIn();
      if (pids.length === 0) return;
      if (Date.now() > deadline) {
        throw new Error(
          `processes ${pids.join(', ')} still in the sandbox's cgroup ${dirs.pids} after SIGKILL`,
        );
      }
      // Without it, kill what is listed; children forked meanwhile show up in the next round.
      for (const pid of atOnce ? [] : pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch (error) {
          if (errorCode(error) !== 'ESRCH') throw error;
        }
      }
      // A killed process stays listed until the kernel has torn it down.
      await delay(round < 10 ? 5 : 50);
    }
  };

  const outcome = async (): Promise<string | null> => {
    const oomKills =
      cgroups.version === 2
        ? eventCount(await readIfThere(path.join(dirs.memory, 'memory.events')), 'oom_kill')
        : eventCount(await readIfThere(path.join(dirs.memory, 'memory.oom_control')), 'oom_kill');
    if (oomKills > 0) return `memory limit ${limits.memoryMb} MB reached`;
    const forksRefused = eventCount(await readIfThere(path.join(dirs.pids, 'pids.events')), 'max');
    if (forksRefused > 0) return `process limit ${limits.pids} reached`;
    return null;
  };

  const created: string[] = [];
  try {
    for (const dir of unique) {
      await mkdir(dir);
      created.push(dir);
    }
    await writeLimits(cgroups.version, dirs, limits);
  } catch (error) {
    for (const dir of created.reverse()) await rmdir(dir).catch(() => undefined);
    throw error;
  }

  return {
    procsFiles,
    outcome,
    killAll,
    watch(onLimit, intervalMs = 500) {
      let stopped = false;
      const timer = setInterval(() => {
        outcome().then(
          (reason) => {
            if (!reason || stopped) return;
            stopped = true;
            clearInterval(timer);
            onLimit(reason, killAll());
          },
          () => undefined, // a failed read is tried again at the next interval
        );
      }, intervalMs);
      timer.unref();
      return () => {
        stopped = true;
        clearInterval(timer);
      };
    },
    async remove() {
      await killAll();
      const deadline = Date.now() + EMPTY_DEADLINE_MS;
      for (const dir of unique) {
        for (;;) {
          try {
            await rmdir(dir);
            break;
          } catch (error) {
            if (errorCode(error) === 'ENOENT') break;
            // EBUSY: a process killed a moment ago is still being torn down.
            if (errorCode(error) !== 'EBUSY' || Date.now() > deadline) throw error;
            await delay(10);
          }
        }
      }
    },
  };
}

/**
 * Writes the shell's own pid into each file, then execs the arguments after them: so the program
 * (bwrap, or the command itself) and everything it starts begin inside the group. The paths and the
 * argv are positional parameters, never part of the script's text.
 */
const ENTRY_SCRIPT = [
  'n=$1; shift',
  'while [ "$n" -gt 0 ]; do',
  '  echo $$ > "$1" || { echo "autocoder: cannot enter the sandbox cgroup $1" >&2; exit 125; }',
  '  n=$((n - 1)); shift',
  'done',
  'exec "$@"',
].join('\n');

/** The argv that runs `argv` inside the cgroup whose procs files are given (exit 125 if it cannot enter). */
export function cgroupEntryArgv(procsFiles: readonly string[], argv: readonly string[]): string[] {
  if (argv.length === 0) throw new Error('cgroupEntryArgv needs a program to run');
  if (!procsFiles.every((file) => path.isAbsolute(file)))
    throw new Error('cgroup.procs paths must be absolute');
  return [
    '/bin/sh',
    '-c',
    ENTRY_SCRIPT,
    'autocoder-cgroup-entry',
    String(procsFiles.length),
    ...procsFiles,
    ...argv,
  ];
}
