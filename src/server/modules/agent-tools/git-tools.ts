import { GitError, git } from '@/server/lib/git.js';
import { cachedListing, type LsFiles } from './git-tools-listing.js';
import { globPathspecs, literalPathspec } from './glob-pathspec.js';
import type { ToolContext } from './tool-context.js';
import type { ToolInput } from './tool-declarations.js';
import { ToolProblem, type ToolSuccess } from './tool-types.js';
import { checkedPath } from './worktree-paths.js';

/**
 * list_files and search see the tree as git does: tracked files and new ones, not what
 * .gitignore ignores. git runs through `lib/git.ts` (the hardened configuration); it does not
 * enter a nested repository (ls-files names it `dir/`, grep skips it) or follow a link.
 */

/** Pathspecs of a directory and/or glob; none for the whole tree. */
function pathspecs(dir: string | undefined, glob: string | undefined): string[] {
  const under =
    dir === undefined || /^(\.\/?)?$/.test(dir) ? undefined : checkedPath(dir.replace(/\/+$/, ''));
  if (glob !== undefined) return globPathspecs(glob, under);
  return under ? [literalPathspec(under)] : [];
}

export async function listFilesTool(ctx: ToolContext, input: ToolInput<'list_files'>): Promise<ToolSuccess> {
  const specs = pathspecs(input.path, input.glob);
  const { files, truncated } = (await cachedListing(ctx, specs, lsFiles)) ?? (await lsFiles(ctx, specs));
  const what = [input.path && `under ${input.path}`, input.glob && `matching ${input.glob}`]
    .filter(Boolean)
    .join(' ');
  const label = what ? ` ${what}` : '';
  if (files.length === 0) {
    return { ok: true, output: `No files${label}.`, summary: `Listed files${label} — none` };
  }
  const shown = files.slice(0, ctx.limits.maxListEntries);
  const left = files.length - shown.length;
  const notes: string[] = [];
  if (left > 0) notes.push(`[${left} more file(s) not shown; narrow with path or glob.]`);
  if (truncated) notes.push('[The listing was too long to count to its end.]');
  return {
    ok: true,
    output: [...shown, ...notes].join('\n'),
    summary: `Listed files${label} — ${files.length}${truncated ? '+' : ''} file${files.length === 1 ? '' : 's'}`,
  };
}

/** `git ls-files` under the pathspecs (the whole tree without any), and the tracked files gone from it. */
const lsFiles: LsFiles = async (ctx, specs) => {
  // -t tags each entry: H tracked, M unmerged (a conflict: one entry per stage), C changed, R
  // tracked but deleted from the tree, ? new; S (skip-worktree) files are not in the tree.
  const { stdout, truncated } = await git(
    ['ls-files', '-t', '--cached', '--deleted', '--others', '--exclude-standard', '-z', '--', ...specs],
    {
      cwd: ctx.rootReal,
      signal: ctx.signal,
      timeoutMs: ctx.limits.gitTimeoutMs,
      maxOutputBytes: ctx.limits.maxGitOutputBytes,
    },
  );
  const tracked = new Set<string>();
  const deleted = new Set<string>();
  const others: string[] = [];
  const entries = stdout.toString('utf8').split('\0');
  if (truncated) entries.pop();
  for (const entry of entries) {
    const file = entry.slice(2);
    if (entry.startsWith('H ') || entry.startsWith('M ') || entry.startsWith('C ')) tracked.add(file);
    else if (entry.startsWith('R ')) deleted.add(file);
    else if (entry.startsWith('? ') && !file.endsWith('/')) others.push(file);
  }
  const files = [...[...tracked].filter((file) => !deleted.has(file)), ...others].sort();
  return { files, truncated, deleted: [...deleted] };
};

/** Whether this git has PCRE (`grep -P`); learnt from the first search that needed it. */
let perlRegexes = true;

export async function searchTool(ctx: ToolContext, input: ToolInput<'search'>): Promise<ToolSuccess> {
  const specs = input.glob === undefined ? [] : globPathspecs(input.glob);
  const run = (syntax: string) =>
    git(
      [
        'grep',
        '-n',
        '-I',
        '--untracked',
        '-z',
        '--no-color',
        syntax,
        ...(input.caseSensitive === false ? ['-i'] : []),
        '-e',
        input.pattern,
        '--',
        ...specs,
      ],
      {
        cwd: ctx.rootReal,
        signal: ctx.signal,
        timeoutMs: ctx.limits.gitTimeoutMs,
        maxOutputBytes: ctx.limits.maxGitOutputBytes,
        answerCodes: [1],
      },
    );
  let result: Awaited<ReturnType<typeof run>>;
  try {
    result = await run(input.fixed ? '-F' : perlRegexes ? '-P' : '-E');
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    if (!input.fixed && perlRegexes && /perl-compatible|USE_LIBPCRE/i.test(error.stderr)) {
      perlRegexes = false;
      return searchTool(ctx, input);
    }
    const reason =
      error.stderr
        .replace(/^fatal: /m, '')
        .trim()
        .split('\n')[0] || error.message;
    throw new ToolProblem(`search failed: ${reason}`);
  }
  const records = result.exitCode === 1 ? [] : result.stdout.toString('utf8').split('\n');
  if (result.truncated) records.pop();
  const matches: string[] = [];
  const files = new Set<string>();
  let count = 0;
  for (const record of records) {
    const [file, line, ...rest] = record.split('\0');
    if (!file || !line) continue;
    count++;
    files.add(file);
    if (matches.length < ctx.limits.maxSearchMatches) {
      const text = rest.join('\0');
      const max = ctx.limits.maxSearchLineChars;
      matches.push(`${file}:${line}:${text.length > max ? `${text.slice(0, max)}…` : text}`);
    }
  }
  const label = `'${input.pattern.length > 60 ? `${input.pattern.slice(0, 60)}…` : input.pattern}'${input.glob ? ` in ${input.glob}` : ''}`;
  if (count === 0) return { ok: true, output: 'No matches.', summary: `Searched ${label} — no matches` };
  const notes: string[] = [];
  if (count > matches.length)
    notes.push(`[${count - matches.length} more match(es) not shown; narrow the pattern or glob.]`);
  if (result.truncated) notes.push('[The search stopped counting: too much output.]');
  const more = result.truncated ? '+' : '';
  return {
    ok: true,
    output: [...matches, ...notes].join('\n'),
    summary: `Searched ${label} — ${count}${more} match${count === 1 ? '' : 'es'} in ${files.size}${more} file${files.size === 1 ? '' : 's'}`,
  };
}
