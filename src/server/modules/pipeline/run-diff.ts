import {
  type DiffFile,
  type DiffFileContent,
  type DiffFinding,
  type GeneralFinding,
  MAX_DIFF_FILE_BYTES,
  MAX_DIFF_FILE_LINES,
  type RunDiff,
} from '@/contracts/diff.js';
import type { ReviewFinding, ReviewResult } from '@/contracts/pipeline.js';
import type { Db } from '@/server/db/client.js';
import { AppError } from '@/server/lib/errors.js';
import { LruCache } from '@/server/lib/lru-cache.js';
import { DEFAULT_PATCH_LIMITS, diffByFile, type FilePatch, fileVersions } from '../workspace/diff.js';
import { languageOf } from '../workspace/language.js';
import { branchCommit } from '../workspace/refs.js';
import { ownedRunDiffSource } from './run-diff.repo.js';

export interface RunDiffDeps {
  db: Db;
}

/**
 * The run's base commit and its branch's head now — the last commit so far while it is still
 * coding — for the run's owner only (404 RUN_NOT_FOUND for anyone else).
 */
async function diffRange(deps: RunDiffDeps, userId: string, runId: string) {
  const source = await ownedRunDiffSource(deps.db, userId, runId);
  if (!source) throw new AppError('RUN_NOT_FOUND', 'Run not found');
  if (!source.branch || !source.baseCommit) {
    throw new AppError('DIFF_NOT_READY', 'The run has no branch yet: it is still setting up its worktree');
  }
  const head = await branchCommit(source.repoPath, source.branch);
  if (!head) {
    throw new AppError('RUN_BRANCH_GONE', `The run's branch ${source.branch} no longer exists`, {
      branch: source.branch,
    });
  }
  return { ...source, baseCommit: source.baseCommit, headCommit: head };
}

/** Diffs kept per database (so per app): a few runs' panels open at once. */
const CACHE_ENTRIES = 8;
/** A diff whose patches weigh more than this is computed again each time rather than kept. */
const CACHE_MAX_PATCH_BYTES = 8 * 1024 * 1024;
const caches = new WeakMap<Db, LruCache<string, Promise<FilePatch[]>>>();

function cacheOf(deps: RunDiffDeps) {
  let cache = caches.get(deps.db);
  if (!cache) {
    cache = new LruCache(CACHE_ENTRIES);
    caches.set(deps.db, cache);
  }
  return cache;
}

const cacheKey = (repoPath: string, base: string, head: string) => `${repoPath}\0${base}\0${head}`;

/**
 * Every changed file with its patch. Two commits name one diff forever, so a diff is computed once
 * and kept (a person switching files, reloading, or several people reading one run); requests that
 * arrive while it is being computed share the computation.
 */
function filePatches(deps: RunDiffDeps, repoPath: string, base: string, head: string): Promise<FilePatch[]> {
  const cache = cacheOf(deps);
  const key = cacheKey(repoPath, base, head);
  const cached = cache.get(key);
  if (cached) return cached;
  const computing = diffByFile(repoPath, base, head, {
    ...DEFAULT_PATCH_LIMITS,
    maxFileLines: MAX_DIFF_FILE_LINES,
  });
  cache.set(key, computing);
  computing.then(
    (files) => {
      const bytes = files.reduce((sum, file) => sum + file.patch.length, 0);
      if (bytes > CACHE_MAX_PATCH_BYTES) cache.delete(key);
    },
    () => cache.delete(key),
  );
  return computing;
}

/** The diff's files and patches if already computed (the panel reads the summary first). */
function cachedPatches(deps: RunDiffDeps, repoPath: string, base: string, head: string) {
  return cacheOf(deps).get(cacheKey(repoPath, base, head));
}

/** GET /api/pipeline/runs/:runId/diff: every changed file with its patch and the last review's findings. */
export async function runDiff(deps: RunDiffDeps, userId: string, runId: string): Promise<RunDiff> {
  const range = await diffRange(deps, userId, runId);
  const files = await filePatches(deps, range.repoPath, range.baseCommit, range.headCommit);
  const review = range.reviewFindings as ReviewResult | null;
  const { byPath, general } = placeFindings(files, review?.findings ?? []);
  let additions = 0;
  let deletions = 0;
  for (const file of files) {
    additions += file.additions;
    deletions += file.deletions;
  }
  return {
    runId: range.runId,
    baseCommit: range.baseCommit,
    headCommit: range.headCommit,
    stats: { filesChanged: files.length, additions, deletions },
    files: files.map(
      (file): DiffFile => ({
        path: file.path,
        oldPath: file.oldPath,
        status: file.status,
        language: languageOf(file.path),
        binary: file.binary,
        additions: file.additions,
        deletions: file.deletions,
        patch: file.patch,
        truncated: file.truncated,
        findings: byPath.get(file.path) ?? [],
      }),
    ),
    generalFindings: general,
  };
}

/** GET /api/pipeline/runs/:runId/diff/file?path=…: both versions of one changed file and its patch. */
export async function runDiffFile(
  deps: RunDiffDeps,
  userId: string,
  runId: string,
  filePath: string,
): Promise<DiffFileContent> {
  const range = await diffRange(deps, userId, runId);
  const found = await fileVersions(
    range.repoPath,
    range.baseCommit,
    range.headCommit,
    filePath,
    MAX_DIFF_FILE_BYTES,
    await cachedPatches(deps, range.repoPath, range.baseCommit, range.headCommit),
  );
  return {
    path: found.file.path,
    oldPath: found.file.oldPath,
    status: found.file.status,
    language: languageOf(found.file.path),
    binary: found.file.binary,
    before: found.before,
    after: found.after,
    patch: found.patch,
    truncated: found.truncated,
    limitBytes: MAX_DIFF_FILE_BYTES,
  };
}

/**
 * Pins each finding to the changed file it names — by its path, its old path if renamed, or
 * either with a diff's `a/` or `b/` prefix — and keeps the rest (no file, or a file the diff
 * does not change) as general findings.
 */
export function placeFindings(
  files: readonly Pick<FilePatch, 'path' | 'oldPath'>[],
  findings: readonly ReviewFinding[],
): { byPath: Map<string, DiffFinding[]>; general: GeneralFinding[] } {
  const target = new Map<string, string>();
  for (const file of files) {
    if (file.oldPath) target.set(file.oldPath, file.path);
  }
  for (const file of files) target.set(file.path, file.path);
  const byPath = new Map<string, DiffFinding[]>();
  const general: GeneralFinding[] = [];
  for (const finding of findings) {
    const named = typeof finding.file === 'string' ? finding.file.trim().replace(/^\.\//, '') : '';
    const path = target.get(named) ?? (/^[ab]\//.test(named) ? target.get(named.slice(2)) : undefined);
    const pinned = { severity: finding.severity, line: finding.line, message: finding.message };
    if (path) byPath.set(path, [...(byPath.get(path) ?? []), pinned]);
    else general.push({ ...pinned, file: named || null });
  }
  return { byPath, general };
}
