import { type BigIntStats, readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '@/server/lib/errors.js';
import { GitError, gitText } from '@/server/lib/git.js';
import { GitObjectsError, objectInfo } from '@/server/lib/git-objects.js';
import { LruCache } from '@/server/lib/lru-cache.js';

/**
 * Refuses revisions and branch names that git would read as options. Callers pass names
 * the server built, but a leading `-` must never reach git's argument parser.
 */
export function assertRevision(rev: string, what: string): void {
  if (!rev || rev.startsWith('-') || rev.includes('\0')) {
    throw new AppError('VALIDATION_ERROR', `Invalid ${what}: ${JSON.stringify(rev)}`);
  }
}

/** The commit a branch points to, or null when there is no such branch. */
export async function branchCommit(dir: string, branch: string): Promise<string | null> {
  assertRevision(branch, 'branch');
  return resolveCommit(dir, `refs/heads/${branch}`);
}

const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

async function readText(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return null;
  }
}

/** A loose ref file as last read, and what identified the file then. */
interface ReadRef {
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  text: string;
}

const readRefs = new LruCache<string, ReadRef>(1000);

/**
 * A loose ref: one line of 41 bytes, asked for on every coordination call. Synchronous: a promised
 * read costs about ten times the CPU (open, stat, read and close each a round trip through libuv's
 * pool) of these system calls on a file the page cache holds. A file seen before with the same inode,
 * size and change times is not read again (one `stat`, not open, read and close): git moves a ref by
 * renaming a new file over it (a new inode), and any write changes the times.
 */
function readRefSync(file: string): string | null {
  let stats: BigIntStats | undefined;
  try {
    stats = statSync(file, { bigint: true, throwIfNoEntry: false });
  } catch {
    stats = undefined;
  }
  if (!stats?.isFile()) {
    readRefs.delete(file);
    return null;
  }
  const known = readRefs.get(file);
  if (
    known &&
    known.ino === stats.ino &&
    known.size === stats.size &&
    known.mtimeNs === stats.mtimeNs &&
    known.ctimeNs === stats.ctimeNs
  ) {
    return known.text;
  }
  try {
    // Read after the stat: a file replaced in between is read again next time (its inode differs).
    const text = readFileSync(file, 'utf8');
    readRefs.set(file, {
      ino: stats.ino,
      size: stats.size,
      mtimeNs: stats.mtimeNs,
      ctimeNs: stats.ctimeNs,
      text,
    });
    return text;
  } catch {
    return null;
  }
}

/**
 * A ref's commit from the files of a repository's common directory: its loose file, else its line in
 * `packed-refs` (git writes both atomically). Undefined when they do not name one plainly (no such
 * ref, a symbolic ref, another ref storage): the caller asks git.
 */
async function refFromFiles(commonDir: string, ref: string): Promise<string | undefined> {
  const parts = ref.split('/');
  if (!parts.every((part) => part !== '' && part !== '.' && part !== '..')) return undefined;
  const loose = readRefSync(path.join(commonDir, ...parts))?.trim();
  if (loose !== undefined) return OBJECT_ID.test(loose) ? loose : undefined;
  const suffix = ` ${ref}`;
  const packed = (await readText(path.join(commonDir, 'packed-refs')))
    ?.split('\n')
    .find((line) => line.endsWith(suffix));
  const id = packed?.slice(0, -suffix.length);
  return id !== undefined && OBJECT_ID.test(id) ? id : undefined;
}

/**
 * `branchCommit` without starting git when it can (`refFromFiles`). The lock rules and the graph ask
 * for a branch's head on every call, and a git process per call is most of their cost. Whatever the
 * files do not say plainly (a worktree's `.git` file included) is asked of git.
 */
export async function readBranchHead(dir: string, branch: string): Promise<string | null> {
  assertRevision(branch, 'branch');
  return (await refFromFiles(path.join(dir, '.git'), `refs/heads/${branch}`)) ?? branchCommit(dir, branch);
}

/**
 * The commit a main checkout's HEAD is detached at, read from `.git/HEAD` (no git started); null
 * when HEAD names a branch or cannot be read.
 */
export async function readDetachedHead(checkout: string): Promise<string | null> {
  const head = (await readText(path.join(checkout, '.git', 'HEAD')))?.trim();
  return head !== undefined && OBJECT_ID.test(head) ? head : null;
}

const SYMBOLIC_REF = /^ref: (refs\/\S+)$/;

/** HEAD from git's files: a main checkout's `.git` directory or a linked worktree's `.git` file. */
async function headFromFiles(checkout: string): Promise<string | undefined> {
  const dotGit = path.join(checkout, '.git');
  const link = await readText(dotGit);
  const gitDir = link?.startsWith('gitdir: ') ? path.resolve(checkout, link.slice(8).trim()) : dotGit;
  const head = (await readText(path.join(gitDir, 'HEAD')))?.trim();
  if (head === undefined) return undefined;
  if (OBJECT_ID.test(head)) return head;
  const ref = SYMBOLIC_REF.exec(head)?.[1];
  if (!ref) return undefined;
  // A linked worktree keeps its HEAD in its own directory and its branches in the repository's.
  const common = await readText(path.join(gitDir, 'commondir'));
  return refFromFiles(common ? path.resolve(gitDir, common.trim()) : gitDir, ref);
}

/**
 * The commit a checkout's HEAD names, or null for an unborn HEAD: from git's files when they say it
 * plainly (`headFromFiles`; just after a commit they do, since it writes the branch's loose ref),
 * else from one `git rev-parse` (`resolveCommitByCommand`).
 */
export async function readHeadCommit(checkout: string): Promise<string | null> {
  return (await headFromFiles(checkout)) ?? resolveCommitByCommand(checkout, 'HEAD');
}

/** The commit a revision names, or null when it names none. */
export async function resolveCommit(dir: string, rev: string): Promise<string | null> {
  assertRevision(rev, 'revision');
  try {
    // The repository's running `cat-file`, when it answers; otherwise a command of its own.
    const found = await objectInfo(dir, `${rev}^{commit}`);
    return found?.type === 'commit' ? found.oid : null;
  } catch (error) {
    if (!(error instanceof GitObjectsError)) throw error;
  }
  return resolveCommitByCommand(dir, rev);
}

/**
 * The commit a revision names, or null, from one `git rev-parse` through the launcher. For a
 * directory asked once (a run's worktree): a `cat-file` reader of its own would be a process
 * started from the server's own thread, which blocks its event loop for 10-20 ms.
 */
export async function resolveCommitByCommand(dir: string, rev: string): Promise<string | null> {
  assertRevision(rev, 'revision');
  try {
    return (await gitText(['rev-parse', '--verify', '--quiet', `${rev}^{commit}`], { cwd: dir })).trim();
  } catch (error) {
    if (error instanceof GitError && error.exitCode === 1) return null;
    throw error;
  }
}

/** True when `ancestor` is reachable from `descendant` (or is it). */
export async function isAncestor(dir: string, ancestor: string, descendant: string): Promise<boolean> {
  try {
    await gitText(['merge-base', '--is-ancestor', ancestor, descendant], { cwd: dir });
    return true;
  } catch (error) {
    // Exit code 1 is git's "no"; anything else is a real failure.
    if (error instanceof GitError && error.exitCode === 1) return false;
    throw error;
  }
}

const PLAIN_COMPONENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/**
 * A plain branch name, valid by git's rules (`git check-ref-format --branch`): components of ASCII
 * letters, digits, `-`, `_` and `.`, separated by single slashes, none starting with `.` or ending
 * with `.lock`, no `..` anywhere, not ending with `.`, not starting with `-`, not `HEAD`. The task
 * branches the server names (`autocoder/<slug>-<id>`) are all plain; anything else is git's to judge.
 */
export function isPlainBranchName(branch: string): boolean {
  if (branch.length > 200 || branch.startsWith('-') || branch === 'HEAD') return false;
  if (branch.includes('..') || branch.endsWith('.')) return false;
  return branch
    .split('/')
    .every((component) => PLAIN_COMPONENT.test(component) && !component.endsWith('.lock'));
}

/**
 * Whether `branch` is a valid branch name by git's own rules: a plain name (`isPlainBranchName`)
 * without starting git, anything else by `git check-ref-format --branch`.
 */
export async function isValidBranchName(branch: string): Promise<boolean> {
  if (!branch || branch.startsWith('-')) return false;
  if (isPlainBranchName(branch)) return true;
  try {
    await gitText(['check-ref-format', '--branch', branch]);
    return true;
  } catch (error) {
    if (error instanceof GitError && error.exitCode !== null) return false;
    throw error;
  }
}

/** Every branch of the repository with its commit (`refs/heads/*`). */
export async function branchHeads(dir: string): Promise<Map<string, string>> {
  const out = await gitText(['for-each-ref', '--format=%(objectname) %(refname:strip=2)', 'refs/heads'], {
    cwd: dir,
  });
  const heads = new Map<string, string>();
  for (const line of out.split('\n')) {
    const space = line.indexOf(' ');
    if (space > 0) heads.set(line.slice(space + 1), line.slice(0, space));
  }
  return heads;
}

/** The branches whose commit differs from `before` (new ones included; deleted ones are not). */
export function movedHeads(
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
): { branch: string; head: string }[] {
  const moved: { branch: string; head: string }[] = [];
  for (const [branch, head] of after) if (before.get(branch) !== head) moved.push({ branch, head });
  return moved;
}
