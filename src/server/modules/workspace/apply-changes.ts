import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, lstat, mkdir, open, realpath, rename, rm, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FileChange } from '@/contracts/pipeline.js';
import { AppError } from '@/server/lib/errors.js';
import { confinementProblem, type Existing, isInside, normalisePath, pathSyntaxProblem } from './confine.js';
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
  /** What to write: the change's content, or for an edit the file with its blocks applied. */
  content: string;
}

/** One search/replace block of an edit. */
export type SearchReplace = Extract<FileChange, { edits: unknown }>['edits'][number];

/** The largest file an edit is applied to (it is read whole, and recorded whole). */
export const MAX_EDITED_FILE_BYTES = 4 * 1024 * 1024;

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
 * An edit (a change with `edits`, see `fileChangeSchema`) applies its search/replace blocks in
 * order to the existing file, each to the result of the ones before: each `search` must occur
 * exactly once, and every byte outside the replaced spans is kept. In a file with CRLF line
 * breaks a search written with LF ones matches them, and the replacement gets CRLF too. An edit
 * of a missing, binary or non-UTF-8 file, or one whose block is not found or found more than
 * once, refuses the whole answer with `INVALID_AGENT_OUTPUT` naming the file and the block
 * (details: `paths`, `problems`), before anything is written.
 *
 * `shownCut` lists the files the agent was shown only the beginning of: an answer that writes
 * them whole (any action but delete and edit) or deletes one of them, by its path or another
 * path to the same file, would drop what the agent never saw, so it is refused whole with
 * `INVALID_AGENT_OUTPUT` naming the file (details: `paths`, `shownCut`), before anything is
 * written. Edits of them are applied: a block is unique in the whole file, seen or not.
 *
 * Returns what was done to each file, and `recorded`: the changes as a run records them, the
 * answer's own except that an edit becomes a `modify` with the file's resulting content.
 */
export async function applyFileChanges(
  worktreePath: string,
  changes: FileChange[],
  opts: { shownCut?: readonly ShownCut[] } = {},
): Promise<{ applied: AppliedChange[]; recorded: FileChange[] }> {
  const rootReal = await realpath(worktreePath);
  const plan = await validate(rootReal, changes);
  await refuseRewritesOfCutFiles(rootReal, plan, opts.shownCut ?? []);
  await resolveEdits(rootReal, plan);
  const applied: AppliedChange[] = [];
  for (const item of plan) applied.push(await applyOne(rootReal, item));
  return { applied, recorded: plan.map(recordedChange) };
}

const isEdit = (change: FileChange): change is Extract<FileChange, { edits: unknown }> => 'edits' in change;

function recordedChange({ change, content }: Planned): FileChange {
  if (!isEdit(change)) return change;
  return { filePath: change.filePath, language: change.language, content, action: 'modify' };
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
    if (!isEdit(change) && change.action !== 'delete' && typeof change.content !== 'string') {
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
    else planned.push({ change, filePath, existing, content: change.content });
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
    // A change to a path that names no file yet cannot reach a file that was shown; an edit
    // keeps what it does not replace.
    if (item.existing === 'missing' || isEdit(item.change)) continue;
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
    `The coder ${each.join('; and ')}; nothing was applied. A file shown in part can only be changed with "edit" search/replace blocks.`,
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
    await writeFile(temp, item.content, { encoding: 'utf8', flag: 'wx' });
    if (mode !== null) await chmod(temp, mode);
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  return { filePath, action: existing === 'missing' ? 'create' : 'modify' };
}

function editsProblem(edits: unknown): string | null {
  if (!Array.isArray(edits) || edits.length === 0) return 'edit without search/replace blocks';
  const bad = edits.findIndex(
    (edit: Partial<SearchReplace> | null) =>
      typeof edit?.search !== 'string' || edit.search === '' || typeof edit.replace !== 'string',
  );
  return bad === -1 ? null : `block ${bad + 1} needs a non-empty "search" and a "replace" text`;
}

interface EditProblem extends Problem {
  /** The block (from 1), when the problem is one block's. */
  block?: number;
}

/** Reads every edited file and applies its blocks in memory; one problem refuses the whole plan. */
async function resolveEdits(rootReal: string, plan: Planned[]) {
  const problems: EditProblem[] = [];
  for (const item of plan) {
    if (!isEdit(item.change)) continue;
    const malformed = editsProblem(item.change.edits);
    if (malformed) {
      problems.push({ path: item.change.filePath, reason: malformed });
      continue;
    }
    const text =
      item.existing === 'missing'
        ? { problem: 'does not exist (create a new file with its complete content)' }
        : await readForEdit(rootReal, path.join(rootReal, item.filePath));
    if (typeof text !== 'string') {
      problems.push({ path: item.change.filePath, reason: text.problem });
      continue;
    }
    const result = applyEdits(text, item.change.edits);
    if (typeof result === 'string') item.content = result;
    else problems.push({ path: item.change.filePath, ...result });
  }
  if (problems.length === 0) return;
  const each = problems.map((p) => `${p.path}${p.block ? ` block ${p.block}` : ''}: ${p.reason}`);
  throw new AppError(
    'INVALID_AGENT_OUTPUT',
    `The coder's edits could not be applied; nothing was applied. ${each.join('; ')}.`,
    { paths: [...new Set(problems.map((p) => p.path))], problems },
  );
}

/** The file as text, read without following a symlink; or why it cannot be edited. */
async function readForEdit(rootReal: string, absolute: string): Promise<string | { problem: string }> {
  // Confinement checked the path; resolve once more so that only a file inside is read.
  const real = await realpath(absolute).then(
    (found) => (isInside(rootReal, found) ? found : null),
    () => null,
  );
  const handle = real && (await open(real, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => null));
  if (!handle) return { problem: 'cannot be read' };
  try {
    const info = await handle.stat();
    if (!info.isFile()) return { problem: 'is not a regular file' };
    if (info.size > MAX_EDITED_FILE_BYTES) {
      return { problem: `is larger than ${MAX_EDITED_FILE_BYTES / (1024 * 1024)} MiB, too large to edit` };
    }
    const bytes = await handle.readFile();
    if (bytes.subarray(0, 8000).includes(0)) return { problem: 'is binary' };
    try {
      // Fatal: a file that is not UTF-8 would not be written back byte for byte. The BOM is kept.
      return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      return { problem: 'is not UTF-8 text' };
    }
  } finally {
    await handle.close();
  }
}

/** Occurrences counted before a search is called found "10,000 times or more". */
const MAX_COUNTED = 10_000;

/** Where `search` first begins in `text`, and how often it does (overlaps included, up to `MAX_COUNTED`). */
function find(text: string, search: string): { at: number; count: number } {
  const at = text.indexOf(search);
  let count = 0;
  for (let i = at; i !== -1 && count < MAX_COUNTED; i = text.indexOf(search, i + 1)) count++;
  return { at, count };
}

const toCrlf = (text: string) => text.replace(/\r?\n/g, '\r\n');
const BARE_LF = /(^|[^\r])\n/;

/**
 * `text` with each block's `search` replaced by its `replace`, in order, each on the result of
 * the ones before; or the first block that does not occur exactly once. When the text has CRLF
 * line breaks, a search with LF ones that is not found as written is looked for with CRLF; the
 * replacement is given CRLF when that is how the search matched, or when the text has no LF
 * line break of its own.
 */
export function applyEdits(
  text: string,
  edits: readonly SearchReplace[],
): string | { block: number; reason: string } {
  let current = text;
  for (const [index, edit] of edits.entries()) {
    const hasCrlf = current.includes('\r\n');
    let { search, replace } = edit;
    if (hasCrlf && !BARE_LF.test(current)) replace = toCrlf(replace);
    let found = find(current, search);
    if (found.count === 0 && hasCrlf && BARE_LF.test(search)) {
      search = toCrlf(search);
      replace = toCrlf(replace);
      found = find(current, search);
    }
    if (found.count !== 1) {
      const times = `${found.count.toLocaleString('en-US')} times${found.count === MAX_COUNTED ? ' or more' : ''}`;
      const reason =
        found.count === 0
          ? 'its search text was not found (copy it exactly, whitespace included)'
          : `its search text was found ${times} (it must occur once: include more lines)`;
      return { block: index + 1, reason };
    }
    current = current.slice(0, found.at) + replace + current.slice(found.at + search.length);
  }
  return current;
}
