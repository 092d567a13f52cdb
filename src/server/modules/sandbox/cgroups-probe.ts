import { constants } from 'node:fs';
import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** The controllers a sandbox is limited by: memory, process count, CPU time. */
export const LIMIT_CONTROLLERS = ['memory', 'pids', 'cpu'] as const;
export type LimitController = (typeof LIMIT_CONTROLLERS)[number];

/** Where sandbox cgroups are made: one parent directory per controller (the same one under v2). */
export interface AvailableCgroups {
  available: true;
  version: 1 | 2;
  parents: Record<LimitController, string>;
}

export type CgroupProbe = AvailableCgroups | { available: false; reason: string };

/** The directory under the server's own cgroup that holds one child per sandbox. */
export const SANDBOXES_DIR = 'autocoder';
/** Under cgroup v2, the leaf the server moves itself into ("no internal processes"). */
export const SERVER_LEAF = 'autocoder-server';

export interface ProcCgroupEntry {
  hierarchyId: number;
  /** Empty for the v2 line (`0::/path`), `name=systemd` for named v1 hierarchies. */
  controllers: string[];
  path: string;
}

/** /proc/<pid>/cgroup: `hierarchy-id:controller,list:/path` per line. */
export function parseProcCgroup(text: string): ProcCgroupEntry[] {
  const entries: ProcCgroupEntry[] = [];
  for (const line of text.split('\n')) {
    const match = /^(\d+):([^:]*):(.*)$/.exec(line);
    if (!match) continue;
    entries.push({
      hierarchyId: Number(match[1]),
      controllers: match[2] ? match[2].split(',') : [],
      path: match[3]!,
    });
  }
  return entries;
}

export interface CgroupMount {
  /** The path inside the hierarchy that is mounted (not `/` for a bind mount or a cgroup namespace). */
  root: string;
  mountPoint: string;
  readOnly: boolean;
  fsType: string;
  superOptions: string[];
}

/** Mount points escape space, tab, newline and backslash as `\ooo`. */
function unescapeMountPath(value: string): string {
  return value.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

/** The cgroup and cgroup2 mounts of /proc/<pid>/mountinfo. */
export function parseCgroupMounts(text: string): CgroupMount[] {
  const mounts: CgroupMount[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    const separator = fields.indexOf('-');
    if (separator < 6) continue;
    const fsType = fields[separator + 1];
    if (fsType !== 'cgroup' && fsType !== 'cgroup2') continue;
    mounts.push({
      root: unescapeMountPath(fields[3]!),
      mountPoint: unescapeMountPath(fields[4]!),
      readOnly: fields[5]!.split(',').includes('ro'),
      fsType,
      superOptions: (fields[separator + 3] ?? '').split(','),
    });
  }
  return mounts;
}

/** The directory of cgroup `cgroupPath` through the first writable mount that shows it, or why none does. */
function directoryOf(cgroupPath: string, mounts: CgroupMount[], what: string): string | { reason: string } {
  const showing = mounts.filter(
    (mount) => mount.root === '/' || cgroupPath === mount.root || cgroupPath.startsWith(`${mount.root}/`),
  );
  if (showing.length === 0) return { reason: `no mount shows the server's ${what} cgroup ${cgroupPath}` };
  const mount = showing.find((candidate) => !candidate.readOnly);
  if (!mount) return { reason: `${what} cgroups are mounted read-only at ${showing[0]!.mountPoint}` };
  const inside = mount.root === '/' ? cgroupPath : cgroupPath.slice(mount.root.length);
  return path.join(mount.mountPoint, inside);
}

/** True when `file` exists (cgroupfs files: a controller's file may be missing). */
export async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

async function mkdirOnce(dir: string): Promise<void> {
  try {
    await mkdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  // Made by another user earlier (a root server, then this one): a sandbox's group could not go in it.
  await access(dir, constants.W_OK);
}

function failure(action: string, error: unknown): { available: false; reason: string } {
  const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  return { available: false, reason: `${action} failed (${code})` };
}

const wordsOf = async (file: string) => (await readFile(file, 'utf8')).split(/\s+/).filter(Boolean);

/** Whether the server's v2 cgroup offers every limit controller (a hybrid host's v2 mount offers none). */
async function v2Offers(ownPath: string, mount: CgroupMount): Promise<boolean> {
  const own = directoryOf(ownPath, [mount], 'v2');
  if (typeof own !== 'string') return false;
  const offered = await wordsOf(path.join(own, 'cgroup.controllers')).catch((): string[] => []);
  return LIMIT_CONTROLLERS.every((controller) => offered.includes(controller));
}

/**
 * Cgroup v2: the server's cgroup must delegate memory, pids and cpu. A non-root cgroup may not hold
 * processes and enable controllers for its children at once, so the server (with every process that
 * shares its cgroup) first moves into the leaf `<own>/autocoder-server`; sandboxes go under `<own>/autocoder`.
 */
async function prepareV2(ownPath: string, mount: CgroupMount): Promise<CgroupProbe> {
  let own = directoryOf(ownPath, [mount], 'v2');
  if (typeof own !== 'string') return { available: false, ...own };
  // Probed again by a server that already moved itself: its cgroup is still the one above the leaf.
  if (path.basename(own) === SERVER_LEAF) own = path.dirname(own);
  let offered: string[];
  try {
    offered = await wordsOf(path.join(own, 'cgroup.controllers'));
  } catch (error) {
    return failure(`reading ${path.join(own, 'cgroup.controllers')}`, error);
  }
  const missing = LIMIT_CONTROLLERS.filter((controller) => !offered.includes(controller));
  if (missing.length > 0) {
    return {
      available: false,
      reason: `cgroup v2 gives the server's cgroup (${own}) no ${missing.join(', ')} controller (run it as root, or under systemd with Delegate=yes)`,
    };
  }
  const enable = LIMIT_CONTROLLERS.map((controller) => `+${controller}`).join(' ');
  const sandboxes = path.join(own, SANDBOXES_DIR);
  let step = '';
  try {
    step = `reading ${path.join(own, 'cgroup.subtree_control')}`;
    const enabled = await wordsOf(path.join(own, 'cgroup.subtree_control'));
    if (!LIMIT_CONTROLLERS.every((controller) => enabled.includes(controller))) {
      // The root cgroup (no cgroup.type) may hold processes beside enabled controllers; any other may not.
      if (await exists(path.join(own, 'cgroup.type'))) {
        const leaf = path.join(own, SERVER_LEAF);
        step = `creating ${leaf}`;
        await mkdirOnce(leaf);
        for (const pid of await wordsOf(path.join(own, 'cgroup.procs'))) {
          step = `moving process ${pid} into ${leaf}`;
          await writeFile(path.join(leaf, 'cgroup.procs'), pid).catch((error: NodeJS.ErrnoException) => {
            if (error.code !== 'ESRCH') throw error; // gone since the list was read
          });
        }
      }
      step = `enabling ${enable} in ${path.join(own, 'cgroup.subtree_control')}`;
      await writeFile(path.join(own, 'cgroup.subtree_control'), enable);
    }
    step = `creating ${sandboxes}`;
    await mkdirOnce(sandboxes);
    step = `enabling ${enable} in ${path.join(sandboxes, 'cgroup.subtree_control')}`;
    await writeFile(path.join(sandboxes, 'cgroup.subtree_control'), enable);
  } catch (error) {
    return failure(step, error);
  }
  return { available: true, version: 2, parents: { memory: sandboxes, pids: sandboxes, cpu: sandboxes } };
}

/** Cgroup v1: one hierarchy per controller (cpu often shares one with cpuacct). */
async function prepareV1(entries: ProcCgroupEntry[], mounts: CgroupMount[]): Promise<CgroupProbe> {
  const parents: Partial<Record<LimitController, string>> = {};
  for (const controller of LIMIT_CONTROLLERS) {
    const entry = entries.find((candidate) => candidate.controllers.includes(controller));
    const showing = mounts.filter(
      (mount) => mount.fsType === 'cgroup' && mount.superOptions.includes(controller),
    );
    if (!entry || showing.length === 0) {
      return {
        available: false,
        reason: `no cgroup v1 hierarchy or v2 delegation offers the ${controller} controller`,
      };
    }
    const own = directoryOf(entry.path, showing, controller);
    if (typeof own !== 'string') return { available: false, ...own };
    parents[controller] = path.join(own, SANDBOXES_DIR);
  }
  // Created once every controller is found, so an unavailable probe leaves nothing behind.
  for (const sandboxes of new Set(Object.values(parents))) {
    try {
      await mkdirOnce(sandboxes);
    } catch (error) {
      return failure(`creating ${sandboxes}`, error);
    }
  }
  return { available: true, version: 1, parents: parents as Record<LimitController, string> };
}

export interface ProbeOptions {
  /** The /proc/<pid> directory whose `cgroup` and `mountinfo` are read; tests lay out their own. */
  procSelf?: string;
}

/**
 * Whether sandboxes can get cgroups of their own, and where: under the server's own cgroup in each
 * hierarchy (so they nest under any limit the host sets on the server). Prefers v2 when it offers
 * memory, pids and cpu; else the v1 hierarchies (a hybrid host mounts both). Not read-only: it
 * creates `<own>/autocoder` and, under v2, moves the server into `<own>/autocoder-server`; any failure
 * is an unavailable probe with the reason.
 */
export async function probeCgroups(options: ProbeOptions = {}): Promise<CgroupProbe> {
  const procSelf = options.procSelf ?? '/proc/self';
  let entries: ProcCgroupEntry[];
  let mounts: CgroupMount[];
  try {
    entries = parseProcCgroup(await readFile(path.join(procSelf, 'cgroup'), 'utf8'));
    mounts = parseCgroupMounts(await readFile(path.join(procSelf, 'mountinfo'), 'utf8'));
  } catch (error) {
    return failure(`reading ${procSelf}/cgroup and mountinfo`, error);
  }
  const unified = entries.find((entry) => entry.hierarchyId === 0 && entry.controllers.length === 0);
  const v2Mount =
    mounts.find((mount) => mount.fsType === 'cgroup2' && !mount.readOnly) ??
    mounts.find((mount) => mount.fsType === 'cgroup2');
  const hasV1 = mounts.some((mount) => mount.fsType === 'cgroup');
  if (unified && v2Mount) {
    // A hybrid host mounts v2 without these controllers (they sit in v1 hierarchies): use v1 there.
    if (!hasV1 || (await v2Offers(unified.path, v2Mount))) return prepareV2(unified.path, v2Mount);
  }
  if (hasV1) return prepareV1(entries, mounts);
  return { available: false, reason: 'no cgroup filesystem is mounted' };
}
