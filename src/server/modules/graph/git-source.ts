import { git } from '@/server/lib/git.js';
import { safeRelativePath } from '../workspace/confine.js';

/** A file of a commit's tree. */
export interface TreeFile {
  path: string;
  oid: string;
  size: number;
}

/** One path changed between two commits (renames come as a delete and an add). */
export interface TreeChange {
  status: 'A' | 'M' | 'D';
  path: string;
  /** The new blob; absent for a delete. */
  file?: TreeFile;
}

const REGULAR_FILE = /^100(644|755)$/;
/** One `cat-file --batch` call reads at most this much, so no single answer is huge. */
const READ_CHUNK_BYTES = 32 * 1024 * 1024;
/**
 * Blobs larger than this are never read (the graph parses files of 1 MB at most by default): a
 * pushed file of hundreds of MB costs its size in a listing, not in memory.
 */
export const MAX_READ_BLOB_BYTES = 16 * 1024 * 1024;

/**
 * Every regular file of the commit's tree (symlinks and submodules are not files of the graph).
 * Paths git would refuse to check out (`..`, `.git/`) are left out: they name no file.
 */
export async function listFiles(repo: string, commit: string, signal?: AbortSignal): Promise<TreeFile[]> {
  const { stdout, truncated } = await git(['ls-tree', '-r', '-l', '-z', '--full-tree', commit], {
    cwd: repo,
    maxOutputBytes: 256 * 1024 * 1024,
    ...(signal ? { signal } : {}),
  });
  if (truncated) throw new Error('the tree listing is too large');
  const files: TreeFile[] = [];
  for (const record of stdout.toString('utf8').split('\0')) {
    if (!record) continue;
    // "<mode> <type> <oid> <size>\t<path>"
    const tab = record.indexOf('\t');
    const [mode = '', type, oid = '', size = ''] = record.slice(0, tab).split(/ +/);
    const path = safeRelativePath(record.slice(tab + 1));
    if (type !== 'blob' || !REGULAR_FILE.test(mode) || !path) continue;
    files.push({ path, oid, size: Number(size) || 0 });
  }
  return files;
}

/** Files added, modified and deleted from `from` to `to`, with the new blob of each and its size. */
export async function changedFiles(
  repo: string,
  from: string,
  to: string,
  signal?: AbortSignal,
): Promise<TreeChange[]> {
  const { stdout } = await git(['diff', '--raw', '-z', '-r', '--no-renames', '--no-abbrev', from, to], {
    cwd: repo,
    ...(signal ? { signal } : {}),
  });
  const fields = stdout.toString('utf8').split('\0');
  const changes: TreeChange[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    // ":<old mode> <new mode> <old oid> <new oid> <status>" then the path.
    const [oldMode = '', newMode = '', , newOid = '', status = ''] = (fields[i] ?? '').slice(1).split(' ');
    const path = safeRelativePath(fields[i + 1] ?? '');
    if (!path) continue;
    const wasFile = REGULAR_FILE.test(oldMode);
    const isFile = REGULAR_FILE.test(newMode);
    // A type change (file ⇄ symlink) is a delete or an add as far as the graph is concerned.
    if (!isFile) {
      if (wasFile) changes.push({ status: 'D', path });
      continue;
    }
    const file = { path, oid: newOid, size: -1 };
    changes.push({ status: wasFile && status !== 'A' ? 'M' : 'A', path, file });
  }
  const files = changes.flatMap((change) => (change.file ? [change.file] : []));
  const sizes = await blobSizes(repo, files, signal);
  for (const file of files) file.size = sizes.get(file.oid) ?? -1;
  return changes;
}

/** The sizes of blobs, from their headers (`cat-file --batch-check`): no content is read. */
async function blobSizes(
  repo: string,
  files: readonly TreeFile[],
  signal?: AbortSignal,
): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  if (files.length === 0) return sizes;
  const { stdout } = await git(['cat-file', '--batch-check=%(objectname) %(objectsize)'], {
    cwd: repo,
    input: `${files.map((file) => file.oid).join('\n')}\n`,
    ...(signal ? { signal } : {}),
  });
  for (const line of stdout.toString('latin1').split('\n')) {
    const [oid = '', size = ''] = line.split(' ');
    if (/^\d+$/.test(size)) sizes.set(oid, Number(size));
  }
  return sizes;
}

/**
 * The contents of blobs, through `git cat-file --batch` (one process per 32 MB). A blob larger
 * than MAX_READ_BLOB_BYTES, or of unknown size (-1), is not read: it has no entry in the map.
 */
export async function readBlobs(
  repo: string,
  files: readonly TreeFile[],
  signal?: AbortSignal,
): Promise<Map<string, Buffer>> {
  const contents = new Map<string, Buffer>();
  for await (const chunk of readBlobChunks(repo, files, signal, READ_CHUNK_BYTES)) {
    for (const [oid, content] of chunk.contents) contents.set(oid, content);
  }
  return contents;
}

/**
 * The same, a chunk at a time, so that a caller can work on one while git reads the next: the
 * first chunk holds about `firstChunkBytes`, each next one twice the one before (up to 32 MB).
 * Files not read (too large, or of unknown size) come first, in a chunk without contents.
 */
export async function* readBlobChunks(
  repo: string,
  files: readonly TreeFile[],
  signal: AbortSignal | undefined,
  firstChunkBytes: number,
): AsyncGenerator<{ files: TreeFile[]; contents: Map<string, Buffer> }> {
  let limit = firstChunkBytes;
  let chunk: TreeFile[] = [];
  let chunkBytes = 0;
  // The bytes git writes for a batch are bounded by the sizes asked for, never by a blob's own.
  const fits = (file: TreeFile) => file.size >= 0 && file.size <= MAX_READ_BLOB_BYTES;
  const readable = files.filter(fits);
  const unread = files.filter((file) => !fits(file));
  if (unread.length > 0) yield { files: unread, contents: new Map() };
  const read = async (list: TreeFile[]) => {
    const expected = list.reduce((sum, file) => sum + file.size + file.oid.length + 32, 0);
    const { stdout, truncated } = await git(['cat-file', '--batch'], {
      cwd: repo,
      input: `${list.map((file) => file.oid).join('\n')}\n`,
      maxOutputBytes: expected,
      ...(signal ? { signal } : {}),
    });
    if (truncated) throw new Error('the files to read are too large');
    const contents = new Map<string, Buffer>();
    parseBatch(stdout, contents);
    return { files: list, contents };
  };
  for (const file of readable) {
    chunk.push(file);
    chunkBytes += file.size;
    if (chunkBytes >= limit) {
      yield await read(chunk);
      chunk = [];
      chunkBytes = 0;
      limit = Math.min(limit * 2, READ_CHUNK_BYTES);
    }
  }
  if (chunk.length > 0) yield await read(chunk);
}

/** Parses `cat-file --batch` output: "<oid> <type> <size>\n<content>\n" or "<name> missing\n". */
function parseBatch(out: Buffer, into: Map<string, Buffer>) {
  let at = 0;
  while (at < out.length) {
    const eol = out.indexOf(10, at);
    if (eol < 0) break;
    const header = out.toString('latin1', at, eol).split(' ');
    at = eol + 1;
    if (header.length !== 3) continue; // "<name> missing"
    const size = Number(header[2]);
    into.set(header[0] ?? '', out.subarray(at, at + size));
    at += size + 1;
  }
}
