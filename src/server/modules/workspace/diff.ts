import { AppError } from '@/server/lib/errors.js';
import { git, gitText } from '@/server/lib/git.js';
import { resolveCommit } from './refs.js';

/** Patches larger than this are cut (at a line end) and flagged. */
export const MAX_PATCH_BYTES = 2 * 1024 * 1024;

export type DiffFileStatus = 'added' | 'modified' | 'deleted' | 'renamed';

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
 * The changes from `base` to `head` (`git diff base head`, renames detected): the unified
 * patch and one entry per file with line counts. External diff drivers and textconv filters
 * are never run.
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
  const common = ['diff', '--no-color', '--no-ext-diff', '--no-textconv', '-M'];
  const cwd = repoOrWorktreePath;

  const patchOut = await git([...common, from, to, '--'], { cwd, maxOutputBytes: maxPatchBytes });
  let patch = patchOut.stdout.toString('utf8');
  if (patchOut.truncated) {
    const lastLine = patch.lastIndexOf('\n');
    patch = lastLine === -1 ? '' : patch.slice(0, lastLine + 1);
  }

  const statuses = parseNameStatus(
    await gitText([...common, '--name-status', '-z', from, to, '--'], { cwd }),
  );
  const counts = parseNumstat(await gitText([...common, '--numstat', '-z', from, to, '--'], { cwd }));
  const files = statuses.map((entry): DiffFile => {
    const count = counts.get(entry.path);
    return {
      ...entry,
      additions: count?.additions ?? 0,
      deletions: count?.deletions ?? 0,
      binary: count?.binary ?? false,
    };
  });
  return { patch, files, truncated: patchOut.truncated };
}

function parseNameStatus(out: string): { path: string; oldPath?: string; status: DiffFileStatus }[] {
  const fields = out.split('\0');
  const entries: { path: string; oldPath?: string; status: DiffFileStatus }[] = [];
  for (let i = 0; i < fields.length; ) {
    const code = fields[i++] ?? '';
    if (!code) continue;
    const letter = code[0];
    if (letter === 'R' || letter === 'C') {
      const oldPath = fields[i++] ?? '';
      const newPath = fields[i++] ?? '';
      entries.push({ path: newPath, oldPath, status: letter === 'R' ? 'renamed' : 'added' });
    } else {
      const filePath = fields[i++] ?? '';
      const status = letter === 'A' ? 'added' : letter === 'D' ? 'deleted' : 'modified';
      entries.push({ path: filePath, status });
    }
  }
  return entries;
}

/** numstat -z: "add\tdel\tpath\0", or for renames "add\tdel\t\0old\0new\0"; binary is "-\t-". */
function parseNumstat(out: string): Map<string, { additions: number; deletions: number; binary: boolean }> {
  const fields = out.split('\0');
  const counts = new Map<string, { additions: number; deletions: number; binary: boolean }>();
  for (let i = 0; i < fields.length; ) {
    const field = fields[i++] ?? '';
    if (!field) continue;
    const [added = '', deleted = '', ...rest] = field.split('\t');
    let filePath = rest.join('\t');
    if (filePath === '') {
      i++; // the old path of a rename
      filePath = fields[i++] ?? '';
    }
    const binary = added === '-';
    counts.set(filePath, {
      additions: binary ? 0 : Number(added),
      deletions: binary ? 0 : Number(deleted),
      binary,
    });
  }
  return counts;
}
