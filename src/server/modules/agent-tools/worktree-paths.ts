import { lstat, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { confinementProblem, isInside, normalisePath, pathSyntaxProblem } from '../workspace/confine.js';
import { ToolProblem } from './tool-types.js';

/**
 * Where a model's path leads, confined to the worktree by the rules of `workspace/confine.ts`:
 * relative, no `..`, nothing named `.git` (any case), no symbolic link on the way that leaves the
 * worktree or enters `.git`. Paths come back canonical (links inside resolved), so a lock or the
 * read-in-full record sees one file under one name however the model spelled it.
 */
export interface WorktreeFile {
  /** Canonical worktree-relative path, `/`-separated. */
  rel: string;
  /** Absolute path of the file itself (no link left to follow on the way). */
  abs: string;
}

const HINTS: Record<string, string> = {
  'absolute path': 'paths are relative to the repository root',
  'contains a ".." segment': 'paths cannot leave the repository',
  'touches .git': "git's own files are not the agent's to read or change",
};

/** The canonical spelling of a syntactically acceptable path, or a ToolProblem saying why not. */
export function checkedPath(raw: string): string {
  const problem = pathSyntaxProblem(raw);
  if (!problem) return normalisePath(raw);
  const hint = HINTS[problem];
  throw new ToolProblem(`path ${JSON.stringify(raw)} refused: ${problem}${hint ? ` (${hint})` : ''}`);
}

/** An existing regular file to read, through links that stay inside. */
export async function existingFile(rootReal: string, raw: string): Promise<WorktreeFile> {
  const rel = checkedPath(raw);
  const { problem, existing } = await confinementProblem(rootReal, rel, false);
  if (problem) throw new ToolProblem(`${rel}: ${problem}`);
  if (existing === 'missing') throw new ToolProblem(`${rel}: no such file (list_files shows what exists)`);
  const abs = await realpath(path.join(rootReal, rel));
  const real = canonical(rootReal, abs);
  const info = await stat(abs);
  if (info.isDirectory()) throw new ToolProblem(`${rel} is a directory; list_files shows its files`);
  if (!info.isFile()) throw new ToolProblem(`${rel} is not a regular file`);
  return { rel: real, abs };
}

/**
 * Where a write or a delete of `raw` lands. A write refuses a link at the path itself (it would
 * be followed); a delete removes a link that stays inside, never what it points to.
 */
export async function writeTarget(
  rootReal: string,
  raw: string,
  purpose: 'write' | 'delete',
): Promise<WorktreeFile & { exists: boolean }> {
  const rel = checkedPath(raw);
  const { problem, existing } = await confinementProblem(rootReal, rel, purpose === 'write');
  if (problem === 'is a symlink') {
    throw new ToolProblem(`${rel} is a symbolic link; change the file it points to instead`);
  }
  if (problem) throw new ToolProblem(`${rel}: ${problem}`);
  if (existing === 'directory') throw new ToolProblem(`${rel} is a directory`);
  if (existing === 'other') throw new ToolProblem(`${rel} is not a regular file`);
  const target = await canonicalTarget(rootReal, rel);
  return { ...target, exists: existing !== 'missing' };
}

/** The deepest existing directory on the way, resolved, then the segments still to be made. */
async function canonicalTarget(rootReal: string, rel: string): Promise<WorktreeFile> {
  const segments = rel.split('/');
  for (let kept = segments.length - 1; kept >= 0; kept--) {
    const dir = path.join(rootReal, ...segments.slice(0, kept));
    const info = await lstat(dir).catch(() => null);
    if (!info) continue;
    const dirReal = await realpath(dir);
    const abs = path.join(dirReal, ...segments.slice(kept));
    return { rel: canonical(rootReal, abs), abs };
  }
  throw new ToolProblem(`${rel}: the repository root is missing`);
}

function canonical(rootReal: string, abs: string): string {
  if (!isInside(rootReal, abs) || abs === rootReal) throw new ToolProblem('path leaves the worktree');
  const rel = path.relative(rootReal, abs).split(path.sep).join('/');
  // The resolved path obeys the same rules as the spelled one (no `.git` reached through a link).
  return checkedPath(rel);
}

/** The parent directory of `file`, checked again once it exists (nothing swapped in a link meanwhile). */
export async function verifiedParent(rootReal: string, file: WorktreeFile): Promise<string> {
  const dir = path.dirname(file.abs);
  const real = await realpath(dir);
  if (real !== dir || !isInside(rootReal, real)) {
    throw new ToolProblem(`${file.rel}: its directory changed while writing; try again`);
  }
  return dir;
}
