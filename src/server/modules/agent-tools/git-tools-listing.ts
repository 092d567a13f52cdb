import { LruCache } from '@/server/lib/lru-cache.js';
import {
  entryNames,
  gitFiles,
  STAT_BATCH,
  stampOf,
  type TreeState,
  watchTree,
  yieldTurn,
} from './git-tools-tree.js';
import { pathspecMatcher } from './git-tools-wildmatch.js';
import type { ToolContext } from './tool-context.js';

export interface Listing {
  /** Sorted: tracked files still in the tree, and new files git does not ignore. */
  files: string[];
  /** git's output was cut at `maxGitOutputBytes`: the listing stops short. */
  truncated: boolean;
}

/** `git ls-files` under the pathspecs, with the tracked files deleted from the tree. */
export type LsFiles = (ctx: ToolContext, specs: string[]) => Promise<Listing & { deleted: string[] }>;

/*
 * The listing cache. Starting git costs a few ms before it reads anything, and `ls-files --others
 * --deleted` over 3,000 files about as much again, while an agent lists the same tree many times
 * in a step. So the whole tree's listing is kept per worktree with what it was made from: every
 * directory git walked (its inode, size, mtime and ctime), the .gitignore files in them, and the
 * worktree's `.git`, index, info/exclude and config files. A listing is used again only when a
 * `lstat` of each of those finds it unchanged, or a changed directory still holds the same entries
 * (an edit renames a new file over the old one): a file made, deleted or renamed changes its
 * directory's times, so a change by the agent's own tools, by the check, by a service running in
 * the worktree or by git (an `add`, a commit) is seen by the next call, whoever made it.
 *
 * Which directories: those holding listed files, and every other one git would walk — a directory
 * with nothing listed (empty, or holding only ignored files) is watched too, unless git says it is
 * ignored (`check-ignore`; nothing in an ignored directory can be listed while the rules and the
 * index stay as they are). A directory holding a `.git` (a nested repository, which git does not
 * enter) is watched, not walked.
 *
 * Racy times (as git's own index has them): a directory changed twice within one tick of the
 * file system's clock keeps the same times, so a listing is used again only when everything it was
 * made from is older than RACY_MS before git began; on a file system without sub-second times,
 * never. The walk and the stamps are taken after git answers, in the background: the call that
 * ran git does not wait for them, the next one does.
 *
 * A listing is filtered in-process by the pathspecs `pathspecs()` makes: a literal directory, and
 * git's glob (`*`, `?`, `**` between slashes) matched as git's wildmatch does. A glob with a
 * bracket expression, a `**` next to other characters (git versions differ on it) or an empty or
 * `.` segment goes to git. The cache holds the last LISTED_WORKTREES worktrees of the process.
 */

/** A directory or a file changed less than this long before a listing makes the listing racy. */
const RACY_MS = 100;
const LISTED_WORKTREES = 16;
/** For tests and the bench: `enabled: false` lists through git every call; the counters say what happened. */
export const listingCache = { enabled: true, hits: 0, fills: 0, kept: 0 };

interface Listed {
  files: string[];
  /** The same names as UTF-8 bytes (git matches globs on bytes), made when a glob first needs them. */
  bytes?: Buffer[];
}

interface CachedListing extends Listed {
  state: TreeState;
  /** Nothing it was made from was changing: the listing may be used again while the state holds. */
  servable: boolean;
}

const listings = new LruCache<string, CachedListing>(LISTED_WORKTREES);
/** A worktree's walk after a listing, which the next call waits for. */
const watching = new Map<string, Promise<void>>();

/**
 * Whether what git would list is as the state recorded it: every file (ignore rules, git's own)
 * unchanged, and every directory either unchanged or holding the same entries (an edit renames a
 * new file over the old one: the directory changes, not what it holds). A directory's new stamp
 * is learnt once it is older than RACY_MS.
 */
async function unchanged(root: string, state: TreeState, signal?: AbortSignal): Promise<boolean> {
  const settled = BigInt(Date.now() - RACY_MS) * 1_000_000n;
  let count = 0;
  for (const [rel, dir] of state.dirs) {
    const abs = rel ? `${root}/${rel}` : root;
    const now = stampOf(abs);
    if (now?.stamp !== dir.stamp) {
      if (!now || entryNames(abs) !== dir.names) return false;
      if (now.mtimeNs < settled) dir.stamp = now.stamp;
    }
    if (++count % STAT_BATCH === 0) {
      await yieldTurn();
      signal?.throwIfAborted();
    }
  }
  for (const [abs, stamp] of state.files) {
    if ((stampOf(abs)?.stamp ?? 'absent') !== stamp) return false;
  }
  return true;
}

/** Resolves when the worktree's listing is recorded (the walk after git listed), for the bench. */
export async function settledListing(root: string): Promise<void> {
  await watching.get(root);
}

/**
 * The listing from the cache, or from git; null when the cache cannot answer (a pathspec only git
 * matches, a listing too long to keep whole). After git lists, what the listing was made from is
 * recorded in the background: the call does not wait for it, the next one does.
 */
export async function cachedListing(
  ctx: ToolContext,
  specs: string[],
  lsFiles: LsFiles,
): Promise<Listing | null> {
  if (!listingCache.enabled) return null;
  const matches = pathspecMatcher(specs);
  if (!matches) return null;
  const root = ctx.rootReal;
  await watching.get(root);
  const entry = listings.get(root);
  let listed: Listed;
  if (entry?.servable && (await unchanged(root, entry.state, ctx.signal))) {
    listingCache.hits++;
    listed = entry;
  } else {
    listingCache.fills++;
    const began = BigInt(Date.now() - RACY_MS) * 1_000_000n;
    const { files, truncated, deleted } = await lsFiles(ctx, []);
    if (truncated) {
      listings.delete(root);
      return null;
    }
    listed = { files };
    // Not the call's signal: the walk is the cache's, and a cancelled step leaves it to end.
    const quiet: ToolContext = { ...ctx, signal: undefined };
    const walk = recordListing(quiet, listed, deleted, began, entry?.state)
      .catch(() => listings.delete(root))
      .finally(() => watching.delete(root));
    watching.set(root, walk);
  }
  if (matches === true) return { files: listed.files, truncated: false };
  listed.bytes ??= listed.files.map((file) => Buffer.from(file));
  const { bytes } = listed;
  return { files: listed.files.filter((file, i) => matches(file, bytes[i] as Buffer)), truncated: false };
}

/**
 * Records what a listing git just made was made from, and caches it. `began`: when git began,
 * less RACY_MS. A directory or file changed since then is recorded as changing (read again next
 * time), and the listing is not used again.
 */
async function recordListing(
  ctx: ToolContext,
  listed: Listed,
  deleted: string[],
  began: bigint,
  previous: TreeState | undefined,
): Promise<void> {
  const root = ctx.rootReal;
  const metaFiles = await gitFiles(root);
  const state = metaFiles && (await watchTree(ctx, listed.files, deleted, metaFiles, previous));
  if (!state) {
    listings.delete(root);
    return;
  }
  // Stamped after the walk: one unchanged since before git began was read by git as it is now.
  let servable = true;
  let fine = false;
  let count = 0;
  const settled = async (abs: string, stamp: string | undefined) => {
    if (++count % STAT_BATCH === 0) await yieldTurn();
    const now = stampOf(abs);
    if (!now) return 'absent';
    if (now.mtimeNs % 1_000_000_000n !== 0n) fine = true;
    if (now.mtimeNs < began && (stamp === undefined || stamp === now.stamp)) return now.stamp;
    servable = false;
    return '';
  };
  for (const [rel, dir] of state.dirs) dir.stamp = await settled(rel ? `${root}/${rel}` : root, dir.stamp);
  for (const abs of state.files.keys()) state.files.set(abs, await settled(abs, undefined));
  // Whole-second times (an old file system) cannot tell a change within the second: no cache.
  if (!fine) {
    listings.delete(root);
    return;
  }
  servable &&= ![...state.dirs.values()].some((dir) => dir.stamp === 'absent');
  if (servable) listingCache.kept++;
  listings.set(root, { ...listed, state, servable });
}
