import { lstat, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * The one set of path rules for file paths from outside (agents' writes and reads, the file
 * endpoint). A path is relative to the worktree or repository, uses `/`, and cannot reach
 * git's files (`.git` in any segment, any case) or leave the tree.
 */

/** Why `input` is not an acceptable worktree-relative path, or null when it is. */
export function pathSyntaxProblem(input: unknown): string | null {
  if (typeof input !== 'string' || input === '') return 'empty path';
  if (input.length > 4096) return 'path too long';
  if (input.includes('\0')) return 'contains NUL';
  if (input.includes('\\')) return 'contains a backslash';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
  if (/[\u0001-\u001f\u007f]/.test(input)) return 'contains control characters';
  if (input.startsWith('/') || /^[a-zA-Z]:/.test(input)) return 'absolute path';
  if (input.endsWith('/')) return 'names a directory';
  const segments = input.split('/');
  if (segments.includes('..')) return 'contains a ".." segment';
  if (segments.some(isGitDirName)) return 'touches .git';
  const normalised = path.posix.normalize(input);
  if (normalised === '.' || normalised === '' || normalised.startsWith('../')) return 'empty path';
  return null;
}

/** The canonical spelling of a path that passed `pathSyntaxProblem` (`./a//b` → `a/b`). */
export function normalisePath(input: string): string {
  return path.posix.normalize(input).replace(/^\.\//, '');
}

/** `input` in its canonical spelling when `pathSyntaxProblem` accepts it, else null. */
export function safeRelativePath(input: string): string | null {
  return pathSyntaxProblem(input) ? null : normalisePath(input);
}

/**
 * `.git` in any case, and the spellings that filesystems fold into it: trailing dots and
 * spaces (NTFS), the 8.3 short name `git~1`, and ignorable Unicode (HFS+).
 */
function isGitDirName(segment: string): boolean {
  const folded = segment
    .replace(/[\u200b-\u200f\u202a-\u202e\u2060-\u2063\ufeff]/g, '')
    .replace(/[. ]+$/, '')
    .toLowerCase();
  return folded === '.git' || folded === 'git~1';
}

export type Existing = 'missing' | 'file' | 'directory' | 'symlink' | 'other';

export interface Confinement {
  problem: string | null;
  /** What is at the path now (a symlink is reported as such, not followed). */
  existing: Existing;
}

/**
 * Walks every existing ancestor of `relative` (already syntax-checked) below `rootReal` (the
 * worktree's real path) with lstat, and refuses symlinks that resolve outside the worktree or
 * into a `.git` directory, ancestors that are not directories, and — when `forWrite` — a
 * symlink at the path itself, since writing through it would follow it.
 */
export async function confinementProblem(
  rootReal: string,
  relative: string,
  forWrite: boolean,
): Promise<Confinement> {
  const segments = relative.split('/');
  let current = rootReal;
  for (let i = 0; i < segments.length; i++) {
    current = path.join(current, segments[i] ?? '');
    const last = i === segments.length - 1;
    const info = await lstat(current).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      if (error.code === 'ENOTDIR') return 'notdir' as const;
      throw error;
    });
    if (info === null) return { problem: null, existing: 'missing' };
    if (info === 'notdir') return { problem: 'a parent is not a directory', existing: 'other' };
    let isDirectory = info.isDirectory();
    if (info.isSymbolicLink()) {
      if (last && forWrite) return { problem: 'is a symlink', existing: 'symlink' };
      const target = await realpath(current).catch(() => null);
      if (!target) return { problem: 'is a dangling symlink', existing: 'symlink' };
      if (!isInside(rootReal, target)) {
        return { problem: 'goes through a symlink that leaves the worktree', existing: 'symlink' };
      }
      if (path.relative(rootReal, target).split(path.sep).some(isGitDirName)) {
        return { problem: 'goes through a symlink into .git', existing: 'symlink' };
      }
      if (last) return { problem: null, existing: 'symlink' };
      isDirectory = (await stat(target)).isDirectory();
    }
    if (!last && !isDirectory) return { problem: 'a parent is not a directory', existing: 'other' };
    if (last) {
      if (isDirectory) return { problem: null, existing: 'directory' };
      return { problem: null, existing: info.isFile() ? 'file' : 'other' };
    }
  }
  return { problem: null, existing: 'missing' };
}

export function isInside(rootReal: string, candidate: string): boolean {
  return (
    candidate === rootReal ||
    candidate.startsWith(rootReal.endsWith(path.sep) ? rootReal : rootReal + path.sep)
  );
}
