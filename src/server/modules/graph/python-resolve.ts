import path from 'node:path';
import type { PythonImport } from './python-imports.js';

const COMMON_ROOTS = ['', 'src', 'lib', 'python'];
const PROJECT_MARKERS = new Set(['pyproject.toml', 'setup.py', 'setup.cfg']);

/**
 * Where absolute imports are looked up, in order: the repository root, the usual source folders
 * (`src`, `lib`, `python`), and each folder holding a `pyproject.toml`, `setup.py` or
 * `setup.cfg` (with its `src/`). The importing file's own folder comes last (a script's folder is
 * on `sys.path`).
 */
export function pythonRoots(paths: Iterable<string>): string[] {
  const roots = new Set(COMMON_ROOTS);
  for (const file of paths) {
    const base = path.posix.basename(file);
    if (!PROJECT_MARKERS.has(base)) continue;
    const dir = path.posix.dirname(file);
    const root = dir === '.' ? '' : dir;
    roots.add(root);
    roots.add(root ? `${root}/src` : 'src');
  }
  return [...roots];
}

function join(dir: string, rest: string): string {
  return dir ? `${dir}/${rest}` : rest;
}

/** The file of a module under `dir` (`a.b` → `a/b.py` or `a/b/__init__.py`), or null. */
function moduleFile(has: (path: string) => boolean, dir: string, dotted: string): string | null {
  const rel = dotted ? join(dir, dotted.replaceAll('.', '/')) : dir;
  for (const candidate of dotted ? [`${rel}.py`, `${rel}.pyi`] : []) if (has(candidate)) return candidate;
  const init = join(rel, '__init__.py');
  if (has(init)) return init;
  return has(join(rel, '__init__.pyi')) ? join(rel, '__init__.pyi') : null;
}

/**
 * The repository files one import statement loads: `from a import b` is `a/b.py` when b is a
 * submodule, else `a.py` (or `a/__init__.py`); `import a.b.c` is the deepest of `a.b.c`, `a.b`, `a`
 * that exists. Relative imports climb from the file's package; one that climbs out of the
 * repository resolves to nothing. Absent modules (the standard library, installed packages) give
 * no file.
 */
export function resolvePythonImport(
  has: (path: string) => boolean,
  roots: readonly string[],
  fromFile: string,
  spec: PythonImport,
): string[] {
  const fileDir = path.posix.dirname(fromFile) === '.' ? '' : path.posix.dirname(fromFile);
  let bases: string[];
  if (spec.level > 0) {
    let dir = fileDir;
    for (let up = 1; up < spec.level; up++) {
      if (!dir) return [];
      dir = path.posix.dirname(dir) === '.' ? '' : path.posix.dirname(dir);
    }
    bases = [dir];
  } else {
    bases = [...roots, fileDir];
  }
  for (const base of bases) {
    const found = resolveUnder(has, base, spec, spec.level > 0);
    if (found.length > 0) return found;
  }
  return [];
}

function resolveUnder(has: (path: string) => boolean, base: string, spec: PythonImport, relative: boolean) {
  if (spec.names.length === 0) {
    const parts = spec.module.split('.');
    for (let length = parts.length; length > 0; length--) {
      const file = moduleFile(has, base, parts.slice(0, length).join('.'));
      if (file) return [file];
    }
    return [];
  }
  const found = new Set<string>();
  let needsModule = false;
  for (const name of spec.names) {
    const submodule =
      name === '*' ? null : moduleFile(has, base, spec.module ? `${spec.module}.${name}` : name);
    if (submodule) found.add(submodule);
    else needsModule = true;
  }
  if (needsModule) {
    // `from . import x` where x is a name of the package itself: its __init__.py.
    const module = spec.module || relative ? moduleFile(has, base, spec.module) : null;
    if (module) found.add(module);
  }
  return [...found];
}
