import { randomBytes } from 'node:crypto';
import { chmod, lstat, mkdir, realpath, rename, rm, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FileChange } from '@/contracts/pipeline.js';
import { AppError } from '@/server/lib/errors.js';
import { confinementProblem, type Existing, normalisePath, pathSyntaxProblem } from './confine.js';
import { type ShownCut, shownPart } from './context.js';

/** What was done to one file: `none` is a delete of a file that was not there. */
export interface AppliedChange {
  filePath: string;
  action: 'create' | 'modify' | 'delete' | 'none';
}

interface Planned {
  change: FileChange;
  filePath: string;
  existing: Existing;
}

interface Problem {
  path: string;
  reason: string;
}

/**
 * Applies a coder's file changes inside a worktree. Agent output is untrusted, so every path is
 * checked before anything is written, and one bad path rejects the whole batch with
 * `INVALID_AGENT_OUTPUT` (details: `paths`, `problems`). Refused: absolute paths, `..`,
 * backslashes, NUL and control characters, `.git` as any segment, symlinks on the way that
 * leave the worktree (or lead into `.git`), a symlink as the file itself when writing,
 * directories, and the same path twice (or a path and its parent) in one batch.
 *
 * `create` and `modify` both write the content (UTF-8), creating parent directories; `delete`
 * of a missing file is not an error and directories are never deleted. Files are replaced by
 * rename, so a symlink or hard link at the target is never written through and the file mode
 * is kept. The checks are all-or-nothing; an I/O failure midway (a full disk) can leave the
 * earlier files applied, which the caller can undo with git since the worktree is a checkout.
 *
 * `shownCut` lists the files the agent was shown only the beginning of: an answer that writes
 * (any action but delete) or deletes one of them, by its path or another path to the same file,
 * would drop what the agent never saw, so it is refused whole with `INVALID_AGENT_OUTPUT` naming
 * the file (details: `paths`, `shownCut`), before anything is written.
 */
export async function applyFileChanges(
  worktreePath: string,
  changes: FileChange[],
  opts: { shownCut?: readonly ShownCut[] } = {},
): Promise<{ applied: AppliedChange[] }> {
  const rootReal = await realpath(worktreePath);
  const plan = await validate(rootReal, changes);
  await refuseRewritesOfCutFiles(rootReal, plan, opts.shownCut ?? []);
  const applied: AppliedChange[] = [];
  for (const item of plan) applied.push(await applyOne(rootReal, item));
  return { applied };
}

async function validate(rootReal: string, changes: FileChange[]): Promise<Planned[]> {
  const problems: Problem[] = [];
  const planned: Planned[] = [];
  const seen = new Map<string, string>();
  for (const change of changes) {
    const raw = change.filePath;
    const syntax = pathSyntaxProblem(raw);
    if (syntax) {
      problems.push({ path: String(raw), reason: syntax });
      continue;
    }
    if (!['create', 'modify', 'delete'].includes(change.action)) {
      problems.push({ path: raw, reason: `unknown action ${JSON.stringify(change.action)}` });
      continue;
    }
    if (change.action !== 'delete' && typeof change.content !== 'string') {
      problems.push({ path: raw, reason: 'content is not text' });
      continue;
    }
    const filePath = normalisePath(raw);
    const first = seen.get(filePath);
    if (first !== undefined) {
      problems.push({ path: raw, reason: `duplicate of ${JSON.stringify(first)}` });
      continue;
    }
    seen.set(filePath, raw);
    const { problem, existing } = await confinementProblem(rootReal, filePath, change.action !== 'delete');
    if (problem) problems.push({ path: raw, reason: problem });
    else if (existing === 'directory') problems.push({ path: raw, reason: 'is a directory' });
    else if (existing === 'other') problems.push({ path: raw, reason: 'is not a regular file' });
    else planned.push({ change, filePath, existing });
  }
  // "a" and "a/b" in one batch cannot both be files.
  for (const filePath of seen.keys()) {
    const parts = filePath.split('/');
    for (let i = 1; i < parts.length; i++) {
      const parent = parts.slice(0, i).join('/');
      const raw = seen.get(parent);
      if (raw !== undefined) problems.push({ path: raw, reason: `is also a parent of ${filePath}` });
    }
  }
  if (problems.length > 0) {
    const shown = problems.slice(0, 20).map((p) => `${JSON.stringify(p.path)} (${p.reason})`);
    const more = problems.length > 20 ? ` and ${problems.length - 20} more` : '';
    throw new AppError('INVALID_AGENT_OUTPUT', `Refused unsafe file paths: ${shown.join(', ')}${more}`, {
      paths: [...new Set(problems.map((p) => p.path))],
      problems,
    });
  }
  return planned;
}

/** The file a worktree path names once symlinks are followed (the path itself when it names nothing). */
async function fileOf(rootReal: string, filePath: string): Promise<string> {
  const absolute = path.join(rootReal, filePath);
  return realpath(absolute).catch(() => absolute);
}

async function refuseRewritesOfCutFiles(rootReal: string, plan: Planned[], cut: readonly ShownCut[]) {
  if (cut.length === 0) return;
  const cutByFile = new Map<string, ShownCut>();
  for (const file of cut) {
    cutByFile.set(path.join(rootReal, normalisePath(file.path)), file);
    cutByFile.set(await fileOf(rootReal, normalisePath(file.path)), file);
  }
  const refused: { item: Planned; cut: ShownCut }[] = [];
  for (const item of plan) {
    // A change to a path that names no file yet cannot reach a file that was shown.
    if (item.existing === 'missing') continue;
    const hit =
      cutByFile.get(path.join(rootReal, item.filePath)) ??
      cutByFile.get(await fileOf(rootReal, item.filePath));
    if (hit) refused.push({ item, cut: hit });
  }
  if (refused.length === 0) return;
  const each = refused.map(({ item, cut }) => {
    const verb = item.change.action === 'delete' ? 'deleted' : 'rewrote';
    const alias = cut.path === item.filePath ? '' : ` (the file ${cut.path} names)`;
    return `${verb} ${item.filePath}${alias}, which it was shown only in part (${shownPart(cut)})`;
  });
  throw new AppError(
    'INVALID_AGENT_OUTPUT',
    `The coder ${each.join('; and ')}; nothing was applied. A file shown in part cannot be replaced or deleted in this mode.`,
    { paths: refused.map(({ item }) => item.filePath), shownCut: refused.map(({ cut }) => cut) },
  );
}

async function applyOne(rootReal: string, item: Planned): Promise<AppliedChange> {
  const { change, filePath } = item;
  const target = path.join(rootReal, filePath);
  if (change.action === 'delete') {
    if (item.existing === 'missing') return { filePath, action: 'none' };
    await unlink(target).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
    return { filePath, action: 'delete' };
  }
  await mkdir(path.dirname(target), { recursive: true });
  // Check again right before writing: a process in the worktree may have swapped a directory
  // for a symlink since validation.
  const { problem, existing } = await confinementProblem(rootReal, filePath, true);
  if (problem || existing === 'directory' || existing === 'other') {
    throw new AppError(
      'INVALID_AGENT_OUTPUT',
      `Refused ${JSON.stringify(filePath)}: ${problem ?? 'not a file'}`,
      {
        paths: [filePath],
      },
    );
  }
  const mode = existing === 'file' ? (await lstat(target)).mode & 0o7777 : null;
  const temp = path.join(path.dirname(target), `.autocoder-${randomBytes(6).toString('hex')}.tmp`);
  try {
    // "wx" = O_CREAT|O_EXCL: never opens an existing file or follows a symlink.
    await writeFile(temp, change.content, { encoding: 'utf8', flag: 'wx' });
    if (mode !== null) await chmod(temp, mode);
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  return { filePath, action: existing === 'missing' ? 'create' : 'modify' };
}
