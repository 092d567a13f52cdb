import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from '@/server/db/client.js';
import { protectedTaskBranches } from '../pipeline/protected-branches.js';
import { relabelProtectedRefusals } from './report-status.js';

/** What one push may bring (AUTOCODER_MAX_BLOB_BYTES, AUTOCODER_MAX_PUSH_UNPACKED_BYTES). */
export interface PushLimits {
  /** The largest blob (file) a push may bring, uncompressed, in bytes. */
  maxBlobBytes: number;
  /** The sum of the uncompressed sizes of the objects one push brings, in bytes. */
  maxUnpackedBytes: number;
}

export const DEFAULT_PUSH_LIMITS: PushLimits = {
  maxBlobBytes: 50 * 1024 * 1024,
  maxUnpackedBytes: 1024 * 1024 * 1024,
};

/**
 * Blobs larger than this are streamed by git while a push is received (index-pack, fsck) rather
 * than held whole in its memory: receive-pack's footprint stays a few MB whatever the push.
 */
const RECEIVE_STREAM_THRESHOLD = 16 * 1024 * 1024;

/**
 * The directory of our pre-receive hook, and nothing else: beside this file in source
 * (git-http/hooks) and beside the bundle (dist/server/git-hooks, copied by scripts/build.mjs).
 * A hook git cannot execute would be skipped with a mere hint, so one that is not executable is
 * an error: pushes are refused rather than let through unchecked.
 */
async function findHooksDir(): Promise<string> {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.join(here, 'hooks'), path.join(here, 'git-hooks')];
  for (const dir of candidates) {
    const hook = path.join(dir, 'pre-receive');
    const found = await access(hook, constants.F_OK).then(
      () => true,
      () => false,
    );
    if (!found) continue;
    await access(hook, constants.X_OK).catch(() => {
      throw new Error(`the push hook ${hook} is not executable`);
    });
    return dir;
  }
  throw new Error(`the push hook was not found (looked in ${candidates.join(', ')})`);
}

let hooksDir: Promise<string> | undefined;

/** The hooks directory (looked up once; a failed lookup is tried again on the next push). */
export function pushHooksDir(): Promise<string> {
  hooksDir ??= findHooksDir().catch((error: unknown) => {
    hooksDir = undefined;
    throw error;
  });
  return hooksDir;
}

/**
 * The refs of a project that a push may only move forward, never delete: its default branch, and
 * the branches of its tasks whose run is active or that are in Review. Asked once per push.
 */
export async function protectedRefs(
  db: Db,
  project: { id: string; defaultBranch: string },
): Promise<string[]> {
  const branches = [project.defaultBranch, ...(await protectedTaskBranches(db, project.id))];
  return [...new Set(branches)].map((branch) => `refs/heads/${branch}`);
}

/**
 * What a receive-pack request gets on top of the backend's settings: our hook as the only one
 * (core.hooksPath, given after the hardened `core.hooksPath=/dev/null` so that it wins there and
 * nowhere else), pushed packs kept as packs (index-pack streams them into the quarantine instead
 * of writing loose objects), large blobs streamed, and what the hook checks, in its environment.
 */
export function receivePackSettings(
  dir: string,
  limits: PushLimits,
  refs: readonly string[],
): { config: string[]; env: Record<string, string> } {
  return {
    config: [
      `core.hooksPath=${dir}`,
      'receive.unpackLimit=1',
      `core.bigFileThreshold=${Math.min(RECEIVE_STREAM_THRESHOLD, limits.maxBlobBytes)}`,
    ],
    env: {
      AUTOCODER_MAX_BLOB_BYTES: String(limits.maxBlobBytes),
      AUTOCODER_MAX_PUSH_UNPACKED_BYTES: String(limits.maxUnpackedBytes),
      AUTOCODER_PROTECTED_REFS: refs.join('\n'),
    },
  };
}

/**
 * Everything a push request adds to `runGitBackend`: the settings and variables above, and its
 * answer's report with a protected ref's refusal named as such. Throws when the hook is missing.
 */
export async function pushOptions(
  deps: { db: Db; gitPush: PushLimits },
  project: { id: string; defaultBranch: string },
) {
  const [dir, refs] = await Promise.all([pushHooksDir(), protectedRefs(deps.db, project)]);
  return { ...receivePackSettings(dir, deps.gitPush, refs), mapBody: relabelProtectedRefusals };
}
