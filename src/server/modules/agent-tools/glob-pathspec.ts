import { ToolProblem } from './tool-types.js';

/**
 * A model's glob as git pathspecs (`:(glob)` magic: `*` and `?` stay within a directory, `**`
 * crosses them). Git has no braces, so `*.{ts,tsx}` becomes one pathspec per alternative; a
 * pattern without `/` matches file names at any depth, as `*.ts` does in most tools.
 */
export function globPathspecs(glob: string, under?: string): string[] {
  const problem = globProblem(glob);
  if (problem) throw new ToolProblem(`glob ${JSON.stringify(glob)}: ${problem}`);
  const base = under ? `${escapeGlob(under)}/` : '';
  return expandBraces(glob.replace(/^(\.\/)+/, '')).map((pattern) => {
    const anywhere = pattern.includes('/') ? pattern : `**/${pattern}`;
    const dir = anywhere.endsWith('/') ? `${anywhere}**` : anywhere;
    return `:(glob)${base}${dir}`;
  });
}

/** A directory as a literal pathspec: it and everything under it, no character special. */
export function literalPathspec(dir: string): string {
  return `:(literal)${dir}`;
}

function globProblem(glob: string): string | null {
  if (glob.length > 1000) return 'too long';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(glob)) return 'contains control characters';
  if (glob.startsWith('/')) return 'is absolute; patterns are relative to the repository root';
  if (glob.split('/').includes('..')) return 'contains a ".." segment';
  return null;
}

/** Shell-style `{a,b}` expansion, nested allowed, at most 64 alternatives. */
export function expandBraces(pattern: string): string[] {
  const open = pattern.indexOf('{');
  if (open < 0) return [pattern];
  let depth = 0;
  const commas: number[] = [];
  let close = -1;
  for (let i = open; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '{') depth++;
    else if (c === '}' && --depth === 0) {
      close = i;
      break;
    } else if (c === ',' && depth === 1) commas.push(i);
  }
  if (close < 0 || commas.length === 0) {
    // Not a set of alternatives: the brace is a plain character (git's globs have none).
    const rest = expandBraces(pattern.slice(open + 1));
    return rest.map((tail) => `${pattern.slice(0, open)}{${tail}`);
  }
  const head = pattern.slice(0, open);
  const tails = expandBraces(pattern.slice(close + 1));
  const bounds = [open, ...commas, close];
  const out: string[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    for (const middle of expandBraces(pattern.slice((bounds[i] ?? 0) + 1, bounds[i + 1]))) {
      for (const tail of tails) out.push(`${head}${middle}${tail}`);
    }
  }
  if (out.length > 64) throw new ToolProblem(`glob ${JSON.stringify(pattern)}: more than 64 alternatives`);
  return out;
}

function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}
