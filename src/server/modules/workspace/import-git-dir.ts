import type { Dirent } from 'node:fs';
import { lstat, readdir, readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { gitText } from '@/server/lib/git.js';

/** True for a real path a local import may read (inside the import roots, outside the data dir). */
export type AllowedPath = (realPath: string) => boolean;

/** Git follows at most 5 levels of alternates; a deeper chain is refused, not half-checked. */
const MAX_ALTERNATE_DEPTH = 5;
/** A `.git` file or `commondir` is one short line; anything longer is not git's. */
const MAX_POINTER_BYTES = 4096;

/**
 * The git directory a clone of the import `dir` (a real path, already allowed) reads from, when
 * every byte of it is allowed: the repository's git directory (`.git` a directory, a gitfile or a
 * symbolic link, resolved), its common dir (a linked worktree's `commondir`), its object
 * directory and alternates (recursively), and every symbolic link found inside any of them. Null
 * when anything leads out of the import roots or into the data dir, or when `dir` is not a git
 * repository: the caller answers both alike.
 *
 * The clone is then made from the directory returned, never from `dir`: git resolves a worktree's
 * `.git` and guesses suffixes (`dir.git`) itself, and would otherwise read a directory that was
 * not checked. The returned directory holds no `.git` of its own and is one git itself accepts,
 * so git looks nowhere else. `objects/info/http-alternates` is read only by dumb-HTTP clients of
 * that repository, never by a local clone (git upload-pack), so it is not followed.
 */
export async function containedGitDir(dir: string, allowed: AllowedPath): Promise<string | null> {
  const gitDir = await gitDirOf(dir);
  if (!gitDir || !allowed(gitDir)) return null;
  // git would take `<gitDir>/.git` before `<gitDir>` itself.
  if (await lstat(path.join(gitDir, '.git')).then(Boolean, () => false)) return null;
  const commonDir = await commonDirOf(gitDir);
  if (!commonDir || !allowed(commonDir)) return null;
  if ((await commonDirByGit(gitDir)) !== commonDir) return null;
  const objectDirs = await objectDirsOf(path.join(commonDir, 'objects'), allowed);
  if (!objectDirs) return null;
  const seen = new Set<string>();
  for (const root of [gitDir, commonDir, ...objectDirs]) {
    if (!(await linksStayInside(root, allowed, seen))) return null;
  }
  return gitDir;
}

/** `<dir>/.git` (a directory, a symbolic link or a `gitdir:` file) resolved, or `dir` for a bare repository. */
async function gitDirOf(dir: string): Promise<string | null> {
  const dotGit = path.join(dir, '.git');
  if (!(await lstat(dotGit).then(Boolean, () => false))) return dir;
  const target = await realpath(dotGit).catch(() => null);
  if (!target) return null;
  const kind = await stat(target).catch(() => null);
  if (kind?.isDirectory()) return target;
  if (!kind?.isFile() || kind.size > MAX_POINTER_BYTES) return null;
  const pointer = /^gitdir: (.+?)\r?\n?$/.exec(await readFile(target, 'utf8'))?.[1];
  // Relative to the directory holding `.git`, as git reads it.
  return pointer ? realpath(path.resolve(dir, pointer)).catch(() => null) : null;
}

/** The linked worktree's common dir (`commondir`, relative to the git dir), or the git dir itself. */
async function commonDirOf(gitDir: string): Promise<string | null> {
  const file = path.join(gitDir, 'commondir');
  const kind = await stat(file).catch(() => null);
  if (!kind) return gitDir;
  if (!kind.isFile() || kind.size > MAX_POINTER_BYTES) return null;
  const pointer = (await readFile(file, 'utf8')).replace(/\r?\n$/, '');
  return pointer ? realpath(path.resolve(gitDir, pointer)).catch(() => null) : null;
}

/** The common dir as git itself sees it, or null when git takes `gitDir` for no repository. */
async function commonDirByGit(gitDir: string): Promise<string | null> {
  try {
    const out = (await gitText(['--git-dir=.', 'rev-parse', '--git-common-dir'], { cwd: gitDir })).trim();
    return await realpath(path.resolve(gitDir, out));
  } catch {
    return null; // not a git directory
  }
}

/** The object directory and its alternates, recursively, every one allowed; null otherwise. */
async function objectDirsOf(objects: string, allowed: AllowedPath): Promise<string[] | null> {
  const found: string[] = [];
  let level = [objects];
  for (let depth = 0; level.length > 0; depth++) {
    if (depth > MAX_ALTERNATE_DEPTH) return null;
    const next: string[] = [];
    for (const candidate of level) {
      const real = await realpath(candidate).catch(() => null);
      if (!real || !allowed(real)) return null;
      if (found.includes(real)) continue;
      found.push(real);
      const alternates = await readAlternates(real);
      if (!alternates) return null;
      next.push(...alternates);
    }
    level = next;
  }
  return found;
}

/**
 * The entries of `objects/info/alternates`, resolved against the object directory as git does
 * (comments and blank lines skipped). A quoted entry is refused rather than unquoted here.
 */
async function readAlternates(objects: string): Promise<string[] | null> {
  const text = await readFile(path.join(objects, 'info', 'alternates'), 'utf8').catch((error) =>
    (error as NodeJS.ErrnoException).code === 'ENOENT' ? '' : null,
  );
  if (text === null) return null;
  const entries = text.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
  if (entries.some((line) => line.startsWith('"'))) return null;
  return entries.map((line) => path.resolve(objects, line));
}

/**
 * True when every symbolic link under `root` (followed, as git would read through it) leads to an
 * allowed path. Directories already walked are not walked again.
 */
async function linksStayInside(root: string, allowed: AllowedPath, seen: Set<string>): Promise<boolean> {
  const pending = [root];
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    if (seen.has(dir)) continue;
    seen.add(dir);
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return false;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) pending.push(full);
      else if (entry.isSymbolicLink()) {
        const target = await realpath(full).catch(() => null);
        if (!target || !allowed(target)) return false;
        if ((await stat(target)).isDirectory()) pending.push(target);
      }
    }
  }
  return true;
}
