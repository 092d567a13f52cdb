/**
 * Whether git would list a path under the pathspecs (those `pathspecs()` makes: none, a literal
 * directory, `:(glob)` patterns): true for no pathspec, null for what only git can say — a bracket
 * expression, or a `**` not between slashes (`a**`, `**b`), which git versions read differently.
 * Git matches a pathspec as a literal prefix first (the whole pathspec, then a `/`), then with
 * wildmatch on the bytes.
 */
export function pathspecMatcher(specs: string[]): true | ((file: string, bytes: Buffer) => boolean) | null {
  if (specs.length === 0) return true;
  const tests: ((file: string, bytes: Buffer) => boolean)[] = [];
  for (const spec of specs) {
    const magic = /^:\((literal|glob)\)/.exec(spec);
    if (!magic?.[1]) return null;
    const raw = spec.slice(magic[0].length);
    const prefix = (file: string) =>
      file === raw || (file.startsWith(raw) && (raw.endsWith('/') || file[raw.length] === '/'));
    if (magic[1] === 'literal') {
      tests.push(prefix);
      continue;
    }
    if (!inProcess(raw)) return null;
    const tail = raw.startsWith('**/') ? raw.slice(3) : undefined;
    if (tail !== undefined && !tail.includes('/')) {
      // `**/name`: git's wildmatch matches the last segment alone (the only one `name` can match);
      // `**/*.ts`, the commonest, is the end of the path.
      const suffix = /^\*([^*?[\\]+)$/.exec(tail)?.[1];
      if (suffix !== undefined) {
        tests.push((file) => prefix(file) || file.endsWith(suffix));
        continue;
      }
      const pattern = Buffer.from(tail);
      tests.push(
        (file, bytes) => prefix(file) || wildmatch(pattern, bytes.subarray(bytes.lastIndexOf(SLASH) + 1)),
      );
      continue;
    }
    const pattern = Buffer.from(raw);
    tests.push((file, bytes) => prefix(file) || wildmatch(pattern, bytes));
  }
  return (file, bytes) => tests.some((test) => test(file, bytes));
}

/**
 * No unescaped `[`, every run of stars longer than one between slashes (or the ends), and no
 * empty, `.` or `..` segment (git normalises those).
 */
function inProcess(pattern: string): boolean {
  if (pattern.split('/').some((segment) => segment === '' || segment === '.' || segment === '..'))
    return false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (c === '[') return false;
    else if (c === '*') {
      let end = i;
      while (pattern[end + 1] === '*') end++;
      const bounded =
        (i === 0 || pattern[i - 1] === '/') && (end === pattern.length - 1 || pattern[end + 1] === '/');
      if (end > i && !bounded) return false;
      i = end;
    }
  }
  return true;
}

const WM_MATCH = 0;
const WM_NOMATCH = 1;
const WM_ABORT_ALL = -1;
const WM_ABORT_TO_STARSTAR = -2;
const STAR = 0x2a;
const SLASH = 0x2f;
const BACKSLASH = 0x5c;
const QUESTION = 0x3f;
const isGlobSpecial = (c: number | undefined) =>
  c === STAR || c === QUESTION || c === 0x5b || c === BACKSLASH;

/** git's wildmatch (wildmatch.c) with WM_PATHNAME, without bracket expressions: on bytes. */
export function wildmatch(pattern: Buffer, text: Buffer): boolean {
  return doWild(pattern, 0, text, 0) === WM_MATCH;
}

function doWild(p: Buffer, pStart: number, t: Buffer, tStart: number): number {
  let pi = pStart;
  let ti = tStart;
  for (; pi < p.length; pi++, ti++) {
    let pc = p[pi];
    const tc = t[ti];
    if (tc === undefined && pc !== STAR) return WM_ABORT_ALL;
    if (pc === BACKSLASH) {
      pi++;
      pc = p[pi];
      if (pc === undefined || tc !== pc) return WM_NOMATCH;
      continue;
    }
    if (pc === QUESTION) {
      if (tc === SLASH) return WM_NOMATCH;
      continue;
    }
    if (pc !== STAR) {
      if (tc !== pc) return WM_NOMATCH;
      continue;
    }
    let matchSlash = false;
    pi++;
    if (p[pi] === STAR) {
      const before = pi - 2;
      while (p[++pi] === STAR) {}
      const next = p[pi];
      if (
        (before < 0 || p[before] === SLASH) &&
        (next === undefined || next === SLASH || (next === BACKSLASH && p[pi + 1] === SLASH))
      ) {
        // `**/` may match no directory at all.
        if (next === SLASH && doWild(p, pi + 1, t, ti) === WM_MATCH) return WM_MATCH;
        matchSlash = true;
      }
    }
    if (pi >= p.length) {
      // A trailing `**` matches everything; a trailing `*`, only what has no more slash.
      if (!matchSlash && t.indexOf(SLASH, ti) >= 0) return WM_ABORT_TO_STARSTAR;
      return WM_MATCH;
    }
    if (!matchSlash && p[pi] === SLASH) {
      // One `*` then a slash: the rest of this directory's name.
      const slash = t.indexOf(SLASH, ti);
      if (slash < 0) return WM_ABORT_ALL;
      ti = slash;
      continue;
    }
    for (;;) {
      if (ti >= t.length) break;
      const literal = p[pi];
      if (!isGlobSpecial(literal)) {
        // What comes before the next occurrence of the literal belongs to the star.
        while (ti < t.length && (matchSlash || t[ti] !== SLASH) && t[ti] !== literal) ti++;
        if (t[ti] !== literal) return matchSlash ? WM_ABORT_ALL : WM_ABORT_TO_STARSTAR;
      }
      const matched = doWild(p, pi, t, ti);
      if (matched !== WM_NOMATCH) {
        if (!matchSlash || matched !== WM_ABORT_TO_STARSTAR) return matched;
      } else if (!matchSlash && t[ti] === SLASH) {
        return WM_ABORT_TO_STARSTAR;
      }
      ti++;
    }
    return WM_ABORT_ALL;
  }
  return ti < t.length ? WM_NOMATCH : WM_MATCH;
}
