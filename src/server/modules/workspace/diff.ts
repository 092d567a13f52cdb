import { AppError } from '@/server/lib/errors.js';
import { git, gitText } from '@/server/lib/git.js';
import { NO_DIFF_DRIVERS } from '@/server/lib/git-hardening.js';
import { readBlob } from '@/server/lib/git-objects.js';
import { assertRevision, resolveCommit } from './refs.js';

/** Patches larger than this are cut (at a line end) and flagged. */
export const MAX_PATCH_BYTES = 2 * 1024 * 1024;

export type DiffFileStatus = 'added' | 'modified' | 'deleted' | 'renamed';

/**
 * A file larger than this is compared as binary: git reads its size, never its bytes, so a
 * pushed file of hundreds of MB costs neither git nor the server its size (no line counts, no patch).
 */
export const DIFF_TEXT_MAX_BYTES = 16 * 1024 * 1024;

/**
 * Every diff of ours: no colour, no external diff driver or textconv filter (they would run
 * programs the repository names), renames found; the operator's prefix and quoting settings
 * do not change the patch's shape, and large files are binary (DIFF_TEXT_MAX_BYTES).
 */
const DIFF = ['diff', '--no-color', ...NO_DIFF_DRIVERS, '-M'];
const DIFF_CONFIG = [
  'diff.noprefix=false',
  'diff.mnemonicPrefix=false',
  'core.quotePath=false',
  `core.bigFileThreshold=${DIFF_TEXT_MAX_BYTES}`,
];

/** One file changed between two commits, as `git diff --raw --numstat` tells it. */
export interface ChangedFile {
  /** The path at head (the new name of a renamed file; the old path of a deleted one). */
  path: string;
  /** The path at base of a renamed file; null otherwise. */
  oldPath: string | null;
  status: DiffFileStatus;
  /** Binary files (and submodule pointers) have no line counts (both 0). */
  binary: boolean;
  additions: number;
  deletions: number;
  /** Object ids at base and head; all zeros for the side a file does not have. */
  oldObject: string;
  newObject: string;
}

/**
 * The files changed from `from` to `to` with their line counts and object ids: one git command
 * (`--raw` and `--numstat` together, NUL-separated, so any file name survives).
 */
export async function changedFiles(dir: string, from: string, to: string): Promise<ChangedFile[]> {
  assertRevision(from, 'revision');
  assertRevision(to, 'revision');
  const out = await gitText([...DIFF, '--raw', '--numstat', '-z', '--no-abbrev', from, to, '--'], {
    cwd: dir,
    config: DIFF_CONFIG,
  });
  return parseRawNumstat(out);
}

/**
 * `--raw -z` entries (":old new oldId newId S\0path\0", "…R100\0old\0new\0" for a rename), then
 * the `--numstat -z` entries of the same files in the same order ("add\tdel\tpath\0", or
 * "add\tdel\t\0old\0new\0"; "-\t-" for binary).
 */
export function parseRawNumstat(out: string): ChangedFile[] {
  const fields = out.split('\0');
  const files: ChangedFile[] = [];
  let i = 0;
  while (fields[i]?.startsWith(':')) {
    const [oldMode = '', newMode = '', oldObject = '', newObject = '', code = ''] = (fields[i++] ?? '')
      .slice(1)
      .split(' ');
    const letter = code[0];
    const twoPaths = letter === 'R' || letter === 'C';
    const oldPath = twoPaths ? (fields[i++] ?? '') : null;
    const filePath = fields[i++] ?? '';
    const status: DiffFileStatus =
      letter === 'R'
        ? 'renamed'
        : letter === 'A' || letter === 'C'
          ? 'added'
          : letter === 'D'
            ? 'deleted'
            : 'modified';
    files.push({
      path: filePath,
      oldPath: letter === 'R' ? oldPath : null,
      status,
      // A submodule pointer (mode 160000) has no text of its own.
      binary: oldMode === '160000' || newMode === '160000',
      additions: 0,
      deletions: 0,
      oldObject,
      newObject,
    });
  }
  for (const file of files) {
    const [added = '', deleted = '', ...rest] = (fields[i++] ?? '').split('\t');
    if (rest.join('\t') === '') i += 2; // a rename's old and new paths follow
    if (added === '-') file.binary = true;
    else if (!file.binary) {
      file.additions = Number(added) || 0;
      file.deletions = Number(deleted) || 0;
    }
  }
  return files;
}

/** The pathspec that names exactly this path: no glob, no magic, whatever its characters. */
const literal = (filePath: string) => `:(literal)${filePath}`;

function cutAtLineEnd(text: string): string {
  const lastLine = text.lastIndexOf('\n');
  return lastLine === -1 ? '' : text.slice(0, lastLine + 1);
}

export interface FilePatch extends ChangedFile {
  /** The file's unified diff, `diff --git` header included; empty for binary and truncated files. */
  patch: string;
  /** The patch was left out: too many changed lines, too many bytes, or past the total budget. */
  truncated: boolean;
}

export interface PatchLimits {
  /** A file with more changed lines than this comes without its patch. */
  maxFileLines: number;
  /** A file whose patch is larger than this (bytes) comes without it. */
  maxFileBytes: number;
  /** Patches of all files together, in bytes; files past it come without theirs. */
  maxTotalBytes: number;
}

export const DEFAULT_PATCH_LIMITS: PatchLimits = {
  maxFileLines: 2000,
  maxFileBytes: 1024 * 1024,
  maxTotalBytes: 32 * 1024 * 1024,
};

/**
 * Every changed file from `from` to `to` with its own patch. Two git commands whatever the
 * number of files: the list, then one patch of every file within the limits, split at its
 * `diff --git` lines (git writes one per file, in the list's order). Files over the line limit
 * are left out of that patch by pathspec, so a huge generated file costs nothing.
 */
export async function diffByFile(
  dir: string,
  from: string,
  to: string,
  limits: PatchLimits = DEFAULT_PATCH_LIMITS,
): Promise<FilePatch[]> {
  const files = await changedFiles(dir, from, to);
  const tooLong = (file: ChangedFile) => file.additions + file.deletions > limits.maxFileLines;
  const wanted = files.filter((file) => !tooLong(file));
  const result: FilePatch[] = files.map((file) => ({ ...file, patch: '', truncated: tooLong(file) }));
  if (wanted.length === 0) return result;

  const excluded = files
    .filter(tooLong)
    .flatMap((file) => (file.oldPath ? [file.oldPath, file.path] : [file.path]))
    .map((filePath) => `:(exclude,literal)${filePath}`);
  const out = await git([...DIFF, from, to, '--', ...excluded], {
    cwd: dir,
    config: DIFF_CONFIG,
    maxOutputBytes: limits.maxTotalBytes,
  });
  const text = out.stdout.toString('utf8');
  const chunks = splitPatch(text);
  // Past the total budget the last chunk is incomplete and later files have none.
  if (out.truncated) chunks.pop();
  if (chunks.length > wanted.length) {
    throw new Error(`git wrote ${chunks.length} file patches for ${wanted.length} files`);
  }
  const byPath = new Map(result.map((file) => [file.path, file]));
  wanted.forEach((file, index) => {
    const entry = byPath.get(file.path);
    const chunk = chunks[index];
    if (!entry) return;
    if (chunk === undefined || chunk.length > limits.maxFileBytes) entry.truncated = true;
    else if (!file.binary) entry.patch = chunk;
  });
  return result;
}

/** A whole patch cut into one piece per file, each starting at its `diff --git` line. */
function splitPatch(text: string): string[] {
  if (!text) return [];
  const chunks: string[] = [];
  let start = 0;
  for (;;) {
    const next = text.indexOf('\ndiff --git ', start);
    if (next === -1) {
      chunks.push(text.slice(start));
      return chunks;
    }
    chunks.push(text.slice(start, next + 1));
    start = next + 1;
  }
}

export interface FileVersions {
  file: ChangedFile;
  /** The file at `from`; null when it was added, empty when binary. */
  before: string | null;
  /** The file at `to`; null when it was deleted, empty when binary. */
  after: string | null;
  patch: string;
  /** `before`, `after` or `patch` was cut at `maxBytes`. */
  truncated: boolean;
}

const NO_OBJECT = /^0+$/;

/**
 * One changed file's two versions and its patch. `filePath` must be exactly the path of a file
 * the diff changes (404 DIFF_FILE_NOT_FOUND otherwise): git reads the objects the diff names, so
 * no path given by a client ever reaches the filesystem or a revision.
 */
export async function fileVersions(
  dir: string,
  from: string,
  to: string,
  filePath: string,
  maxBytes: number,
  /** The same diff's files and patches, already computed (`diffByFile`): saves git commands. */
  known?: readonly FilePatch[],
): Promise<FileVersions> {
  const files: readonly (ChangedFile & { patch?: string; truncated?: boolean })[] =
    known ?? (await changedFiles(dir, from, to));
  const file = files.find((entry) => entry.path === filePath);
  if (!file)
    throw new AppError('DIFF_FILE_NOT_FOUND', 'The run does not change this file', { path: filePath });
  const knownPatch = file.patch !== undefined && !file.truncated ? file.patch : null;
  const read = async (object: string, present: boolean) => {
    if (!present) return { text: null, truncated: false };
    if (file.binary) return { text: '', truncated: false };
    const blob = await readBlob(dir, object, maxBytes);
    return { text: blob.data.toString('utf8'), truncated: blob.truncated };
  };
  const paths = file.oldPath ? [file.oldPath, file.path] : [file.path];
  const [before, after, patchOut] = await Promise.all([
    read(file.oldObject, file.status !== 'added' && !NO_OBJECT.test(file.oldObject)),
    read(file.newObject, file.status !== 'deleted' && !NO_OBJECT.test(file.newObject)),
    knownPatch !== null && Buffer.byteLength(knownPatch) <= maxBytes
      ? { stdout: Buffer.from(knownPatch), truncated: false }
      : git([...DIFF, from, to, '--', ...paths.map(literal)], {
          cwd: dir,
          config: DIFF_CONFIG,
          maxOutputBytes: maxBytes,
        }),
  ]);
  const patchText = patchOut.stdout.toString('utf8');
  return {
    file,
    before: before.text,
    after: after.text,
    patch: file.binary ? '' : patchOut.truncated ? cutAtLineEnd(patchText) : patchText,
    truncated: before.truncated || after.truncated || patchOut.truncated,
  };
}

export interface DiffFile {
  /** The path after the change (the new name of a renamed file). */
  path: string;
  /** The path before a rename. */
  oldPath?: string;
  additions: number;
  deletions: number;
  status: DiffFileStatus;
  /** Binary files have no line counts (both 0). */
  binary: boolean;
}

export interface DiffResult {
  patch: string;
  files: DiffFile[];
  /** True when `patch` was cut at `maxPatchBytes`; `files` is always complete. */
  truncated: boolean;
}

/**
 * The changes from `base` to `head` (`git diff base head`, renames detected) as one unified
 * patch (what the reviewer reads) and one entry per file with line counts.
 */
export async function diffRange(
  repoOrWorktreePath: string,
  base: string,
  head: string,
  maxPatchBytes = MAX_PATCH_BYTES,
): Promise<DiffResult> {
  const from = await resolveCommit(repoOrWorktreePath, base);
  const to = await resolveCommit(repoOrWorktreePath, head);
  if (!from) throw new AppError('NOT_FOUND', `Commit ${base} not found`);
  if (!to) throw new AppError('NOT_FOUND', `Commit ${head} not found`);
  const cwd = repoOrWorktreePath;
  const [patchOut, changed] = await Promise.all([
    git([...DIFF, from, to, '--'], { cwd, config: DIFF_CONFIG, maxOutputBytes: maxPatchBytes }),
    changedFiles(cwd, from, to),
  ]);
  const patch = patchOut.stdout.toString('utf8');
  const files = changed.map(
    ({ path, oldPath, status, additions, deletions, binary }): DiffFile => ({
      path,
      ...(oldPath ? { oldPath } : {}),
      status,
      additions,
      deletions,
      binary,
    }),
  );
  return { patch: patchOut.truncated ? cutAtLineEnd(patch) : patch, files, truncated: patchOut.truncated };
}
