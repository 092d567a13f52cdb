import { open, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { TreeEntry } from '@/contracts/projects.js';
import { confinementProblem, isInside, normalisePath, pathSyntaxProblem } from './confine.js';
import { readHeadCommit } from './refs.js';
import { treeFiles } from './tree.js';

/**
 * The files of the worktree's HEAD for the planner, one line each (`src/app.ts (1.2 KB)`), in
 * git's order. Past `maxChars` the list ends with `… N more files`; the result never exceeds
 * `maxChars`. Empty when HEAD has no commit or no files.
 */
export async function repoMap(worktreePath: string, maxChars: number): Promise<string> {
  const files = await headFiles(worktreePath);
  const lines: string[] = [];
  let used = 0;
  for (let i = 0; i < files.length; i++) {
    const file = files[i]!;
    const line = `${file.path} (${formatSize(file.size)})`;
    const needed = used + (lines.length > 0 ? 1 : 0) + line.length;
    const rest = files.length - i - 1;
    // Keep room for the "more files" line whenever something would be left out.
    const reserve = rest > 0 ? 1 + moreLine(rest).length : 0;
    if (needed + reserve > maxChars) break;
    lines.push(line);
    used = needed;
  }
  const omitted = files.length - lines.length;
  if (omitted > 0) {
    const more = moreLine(omitted);
    if (used + (lines.length > 0 ? 1 : 0) + more.length <= maxChars) lines.push(more);
  }
  return lines.join('\n');
}

const moreLine = (count: number) => `… ${count} more file${count === 1 ? '' : 's'}`;

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

async function headFiles(dir: string): Promise<TreeEntry[]> {
  // A run's worktree is asked this once: no `cat-file` reader is started for it, and its HEAD is
  // read from git's files when they name it plainly.
  const commit = await readHeadCommit(dir);
  // An unborn HEAD (no commit yet) has no files.
  return commit ? treeFiles(dir, commit) : [];
}

export interface ContextFile {
  path: string;
  content: string;
  /** True when the file was cut to fit the budget. */
  truncated: boolean;
  /** The file's size in bytes when it was read. */
  size: number;
}

/** A file an agent was shown only the beginning of, and how much of it that was. */
export interface ShownCut {
  path: string;
  /** Characters shown, from the file's start. */
  shownChars: number;
  /** Lines begun in what was shown. */
  shownLines: number;
  /** The whole file's size in bytes. */
  size: number;
}

/**
 * The files of a context that were cut: the agent never saw the rest of them, so an answer that
 * gives one complete (or deletes it) would drop what it did not see (see `applyFileChanges`).
 */
export function shownCut(files: readonly ContextFile[]): ShownCut[] {
  return files
    .filter((file) => file.truncated)
    .map((file) => ({
      path: file.path,
      shownChars: file.content.length,
      shownLines: linesIn(file.content),
      size: file.size,
    }));
}

/** Lines begun in `text` (a final newline begins none). */
const linesIn = (text: string) => (text === '' ? 0 : text.replace(/\n$/, '').split('\n').length);

const count = (n: number) => n.toLocaleString('en-US');

/** What an agent saw of a cut file: "its first 60,000 characters, 1,234 lines, of a 250,000-byte file". */
export function shownPart(cut: ShownCut): string {
  const lines = `${count(cut.shownLines)} line${cut.shownLines === 1 ? '' : 's'}`;
  return `its first ${count(cut.shownChars)} characters, ${lines}, of a ${count(cut.size)}-byte file`;
}

/** Bytes sniffed for NUL to tell binary files from text, as git does. */
const SNIFF_BYTES = 8000;

/**
 * The current contents of `paths` in the worktree's working tree, for an agent's context,
 * within `maxChars` characters in total (the last file that fits only partly is cut and
 * flagged; later ones are left out). Paths follow the same rules as agent writes — anything
 * unsafe, missing, not a regular file, or binary is skipped, as are repeats.
 */
export async function readFilesForContext(
  worktreePath: string,
  paths: string[],
  maxChars: number,
): Promise<ContextFile[]> {
  const rootReal = await realpath(worktreePath);
  const result: ContextFile[] = [];
  const seen = new Set<string>();
  let budget = maxChars;
  for (const raw of paths) {
    if (budget <= 0) break;
    if (pathSyntaxProblem(raw)) continue;
    const relative = normalisePath(raw);
    if (seen.has(relative)) continue;
    seen.add(relative);
    const { problem, existing } = await confinementProblem(rootReal, relative, false);
    if (problem || (existing !== 'file' && existing !== 'symlink')) continue;
    const file = await readText(rootReal, path.join(rootReal, relative), budget);
    if (!file) continue;
    if (file.truncated && file.content === '') break; // not even one character fits
    result.push({ path: relative, ...file });
    budget -= file.content.length;
  }
  return result;
}

/** Reads at most what `maxChars` characters of UTF-8 can take, never a whole huge file. */
async function readText(
  rootReal: string,
  absolute: string,
  maxChars: number,
): Promise<{ content: string; truncated: boolean; size: number } | null> {
  // Confinement checked the path; resolve once more so a symlink is read only if it stays inside.
  const target = await realpath(absolute).catch(() => null);
  if (!target || !isInside(rootReal, target)) return null;
  const handle = await open(target, 'r').catch(() => null);
  if (!handle) return null;
  try {
    const info = await handle.stat();
    if (!info.isFile()) return null;
    const limit = Math.min(info.size, maxChars * 4 + 4);
    const buffer = Buffer.alloc(limit);
    const { bytesRead } = await handle.read(buffer, 0, limit, 0);
    const bytes = buffer.subarray(0, bytesRead);
    if (bytes.subarray(0, SNIFF_BYTES).includes(0)) return null;
    let content = bytes.toString('utf8');
    let truncated = bytesRead < info.size;
    if (content.length > maxChars) {
      content = content.slice(0, maxChars);
      // Do not end on half a surrogate pair.
      if (/[\ud800-\udbff]$/.test(content)) content = content.slice(0, -1);
      truncated = true;
    }
    if (truncated && bytesRead < info.size) {
      // The read stopped at a byte limit, possibly inside a character: drop a broken tail.
      content = content.replace(/\ufffd$/, '');
    }
    return { content, truncated, size: info.size };
  } finally {
    await handle.close();
  }
}
