import { type BigIntStats, type Dirent, lstatSync, readdirSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { git } from '@/server/lib/git.js';
import type { ToolContext } from './tool-context.js';

// What a listing of the tree was made from (see git-tools-listing.ts): the directories git walks,
// the ignore files in them and git's own files, each with its stamp.

/** Past this many directories to watch, a tree is listed by git every time. */
const MAX_WATCHED_DIRS = 20_000;
/** `lstat`s made in one go before the event loop gets a turn. */
export const STAT_BATCH = 512;

export interface WatchedDir {
  /** Its stamp when read, or '' when it was changing then (read again next time). */
  stamp: string;
  /** Names of its subdirectories (not `.git`). */
  dirs: string[];
  /** It holds a `.git`: a nested repository, which git does not enter. */
  repository: boolean;
  gitignore: boolean;
  /** Its entries, each name with its type, sorted (`entryNames`). */
  names: string;
}

export interface TreeState {
  /** By worktree-relative path ('' for the root). */
  dirs: Map<string, WatchedDir>;
  /** .gitignore files and git's own files, by absolute path: their stamp, 'absent', or '' (changing). */
  files: Map<string, string>;
  /** Directories with nothing listed, and whether git ignores them (`check-ignore`). */
  verdicts: Map<string, boolean>;
}

interface Stamped {
  stamp: string;
  mtimeNs: bigint;
}

export function stampOf(abs: string): Stamped | null {
  let stats: BigIntStats | undefined;
  try {
    stats = lstatSync(abs, { bigint: true, throwIfNoEntry: false });
  } catch {
    return null;
  }
  if (!stats) return null;
  return {
    stamp: `${stats.mode}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`,
    mtimeNs: stats.mtimeNs,
  };
}

export const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The worktree's git files whose change can change a listing: `.git`, the index (second), the rules, config. */
export async function gitFiles(root: string): Promise<string[] | null> {
  const dotGit = path.join(root, '.git');
  let gitDir = dotGit;
  try {
    const text = await readFile(dotGit, 'utf8');
    const target = /^gitdir: (.+)$/m.exec(text)?.[1]?.trim();
    if (!target) return null;
    gitDir = path.resolve(root, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EISDIR') return null;
  }
  let commonDir = gitDir;
  try {
    commonDir = path.resolve(gitDir, (await readFile(path.join(gitDir, 'commondir'), 'utf8')).trim());
  } catch {
    // not a linked worktree: its git directory is the common one
  }
  return [
    dotGit,
    path.join(gitDir, 'index'),
    path.join(gitDir, 'config.worktree'),
    path.join(commonDir, 'config'),
    path.join(commonDir, 'info', 'exclude'),
  ];
}

/** Every directory above each path ('' for the root). */
function ancestors(paths: Iterable<string>): Set<string> {
  const out = new Set<string>(['']);
  for (const file of paths) {
    for (let at = file.lastIndexOf('/'); at > 0; at = file.lastIndexOf('/', at - 1)) {
      const dir = file.slice(0, at);
      if (out.has(dir)) break;
      out.add(dir);
    }
  }
  return out;
}

/** Which of the directories git ignores (`check-ignore`). */
async function ignoredDirs(ctx: ToolContext, dirs: string[]): Promise<Set<string>> {
  if (dirs.length === 0) return new Set();
  const { stdout } = await git(['check-ignore', '-z', '--stdin'], {
    cwd: ctx.rootReal,
    signal: ctx.signal,
    timeoutMs: ctx.limits.gitTimeoutMs,
    input: `${dirs.join('\0')}\0`,
    answerCodes: [1],
  });
  return new Set(stdout.toString('utf8').split('\0').filter(Boolean));
}

const typeOf = (entry: Dirent) =>
  entry.isDirectory() ? 'd' : entry.isSymbolicLink() ? 'l' : entry.isFile() ? 'f' : 'o';
const namesOf = (entries: Dirent[]) =>
  entries
    .map((entry) => `${typeOf(entry)}${entry.name}`)
    .sort()
    .join('\0');

/** A directory's entries as `WatchedDir.names` has them; null when it cannot be read. */
export function entryNames(abs: string): string | null {
  try {
    return namesOf(readdirSync(abs, { withFileTypes: true }));
  } catch {
    return null;
  }
}

export const emptyState = (): TreeState => ({ dirs: new Map(), files: new Map(), verdicts: new Map() });

/**
 * The directories git walks for this listing, level by level from the root: those holding listed
 * (or deleted tracked) files, and the others unless git ignores them. A directory whose stamp is
 * what the previous state recorded is not read again. Null when the tree is too large to watch
 * or cannot be read.
 */
export async function watchTree(
  ctx: ToolContext,
  files: string[],
  deleted: string[],
  metaFiles: string[],
  previous: TreeState | undefined,
): Promise<TreeState | null> {
  const root = ctx.rootReal;
  const holding = ancestors(files);
  for (const dir of ancestors(deleted)) holding.add(dir);
  const state = emptyState();
  for (const file of metaFiles) state.files.set(file, '');
  // check-ignore's verdicts hold while the rules are what they were: no ignore file or git config
  // changed, and no .gitignore appeared in a directory read again. Not the index: a tracked file
  // under a directory makes it listed (or deleted) and so walked, never asked about.
  const index = metaFiles[1];
  let rulesKept =
    previous !== undefined &&
    [...previous.files].every(([abs, stamp]) => abs === index || (stampOf(abs)?.stamp ?? 'absent') === stamp);
  let level = [''];
  while (level.length > 0) {
    ctx.signal?.throwIfAborted();
    const read = await Promise.all(level.map((rel) => readWatchedDir(root, rel, previous)));
    const next: string[] = [];
    const others: string[] = [];
    for (const [i, rel] of level.entries()) {
      const dir = read[i];
      if (!dir) return null;
      state.dirs.set(rel, dir);
      if (dir.gitignore) {
        state.files.set(`${rel ? `${root}/${rel}` : root}/.gitignore`, '');
        if (!previous?.dirs.get(rel)?.gitignore) rulesKept = false;
      }
      if (dir.repository && rel !== '' && !holding.has(rel)) continue;
      for (const name of dir.dirs) {
        const child = rel ? `${rel}/${name}` : name;
        if (holding.has(child)) next.push(child);
        else others.push(child);
      }
    }
    const known = rulesKept ? previous?.verdicts : undefined;
    const unknown = others.filter((dir) => known?.get(dir) === undefined);
    const ignored = await ignoredDirs(ctx, unknown);
    for (const dir of others) {
      const isIgnored = known?.get(dir) ?? ignored.has(dir);
      state.verdicts.set(dir, isIgnored);
      if (!isIgnored) next.push(dir);
    }
    if (state.dirs.size + next.length > MAX_WATCHED_DIRS) return null;
    level = next;
  }
  return state;
}

async function readWatchedDir(
  root: string,
  rel: string,
  previous: TreeState | undefined,
): Promise<WatchedDir | null> {
  const abs = rel ? `${root}/${rel}` : root;
  const before = stampOf(abs);
  if (!before) return null;
  const known = previous?.dirs.get(rel);
  if (known && known.stamp === before.stamp) return { ...known };
  try {
    const entries = await readdir(abs, { withFileTypes: true });
    return {
      stamp: before.stamp,
      dirs: entries.filter((e) => e.isDirectory() && e.name !== '.git').map((e) => e.name),
      repository: entries.some((e) => e.name === '.git'),
      gitignore: entries.some((e) => e.name === '.gitignore' && !e.isDirectory()),
      names: namesOf(entries),
    };
  } catch {
    return null;
  }
}
