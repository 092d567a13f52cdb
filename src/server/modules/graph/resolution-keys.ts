import path from 'node:path';

/**
 * Which requests an added or deleted file can change, without resolving every request again.
 *
 * A request looks for files named after its last segment: `./a/foo` tries `foo.ts`, `foo/index.ts`,
 * `foo.d.ts`…, and so does `@/a/foo` through a wildcard alias (`@/*` keeps the segment). Such a
 * request can only change when a file whose name (or, for an index file, whose folder's name)
 * shares a stem with that segment comes or goes. The stems of `foo.test.ts` are `foo`, `foo.test`
 * and `foo.test.ts`.
 *
 * What escapes that rule is resolved again on every added or deleted file: a request whose current
 * file has a name unrelated to it (an exact alias `"@config": ["src/settings.ts"]`, a package.json
 * `exports` entry, a folder's `main`), a request for `.` or `..`, and an unresolved request that
 * names an exact key of tsconfig `paths` or package.json `imports`/`exports`, or a package of the
 * repository. A change to any JSON file resolves everything again.
 */
export function stems(name: string): string[] {
  const out: string[] = [];
  for (let i = name.indexOf('.', 1); i > 0; i = name.indexOf('.', i + 1)) out.push(name.slice(0, i));
  out.push(name);
  return out;
}

/** The stems a request looks for, or null when it must always be resolved again (`.`, `..`, `./`). */
export function requestStems(request: string): string[] | null {
  const segments = request.split(/[\\/]/).filter(Boolean);
  const last = segments.at(-1);
  if (!last || last === '.' || last === '..' || request.endsWith('/')) return null;
  return stems(last);
}

/** The stems under which a file can be found: its name's, and its folder's for an index file. */
export function fileStems(file: string): string[] {
  const base = path.posix.basename(file);
  const own = stems(base);
  if (!base.startsWith('index.')) return own;
  const dir = path.posix.basename(path.posix.dirname(file));
  return dir && dir !== '.' ? [...own, ...stems(dir)] : own;
}

/** Exact (wildcard-free) alias keys and package names found in the repository's JSON files. */
export interface ConfigHints {
  exactKeys: ReadonlySet<string>;
  packageNames: ReadonlySet<string>;
}

/** Reads the hints from the JSON files (package.json and tsconfigs, JSONC read leniently). */
export function configHints(
  configs: ReadonlyMap<string, Buffer>,
  parse: (text: string) => unknown,
): ConfigHints {
  const exactKeys = new Set<string>();
  const packageNames = new Set<string>();
  for (const [file, content] of configs) {
    const value = parse(content.toString('utf8'));
    if (!value || typeof value !== 'object') continue;
    const record = value as Record<string, unknown>;
    if (path.posix.basename(file) === 'package.json' && typeof record.name === 'string') {
      packageNames.add(record.name);
    }
    const options = record.compilerOptions as Record<string, unknown> | undefined;
    for (const map of [options?.paths, record.imports, record.exports]) {
      if (!map || typeof map !== 'object') continue;
      for (const key of Object.keys(map)) if (!key.includes('*')) exactKeys.add(key.replace(/^\.\//, ''));
    }
  }
  return { exactKeys, packageNames };
}

/** Whether a request must be resolved again after files with these stems were added or deleted. */
export function mustResolveAgain(
  request: string,
  current: string | null,
  changedStems: ReadonlySet<string>,
  deleted: ReadonlySet<string>,
  hints: ConfigHints,
): boolean {
  const wanted = requestStems(request);
  if (!wanted) return true;
  if (wanted.some((stem) => changedStems.has(stem))) return true;
  if (current !== null) {
    if (deleted.has(current)) return true;
    // Found under an unrelated name: an exact alias, an `exports` entry, a folder's `main`.
    const found = fileStems(current);
    return !wanted.some((stem) => found.includes(stem));
  }
  if (request.startsWith('.') || request.startsWith('/')) return false;
  if (hints.exactKeys.has(request) || hints.exactKeys.has(request.replace(/^[^/]+\//, ''))) return true;
  const packageName = request.startsWith('@')
    ? request.split('/').slice(0, 2).join('/')
    : request.split('/')[0];
  return hints.packageNames.has(packageName ?? '');
}
