import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * docs/architecture.md stays true to the tree. The conventions it is written to, checked here:
 *
 * - Every folder of `src/server/modules/` has its entry, the code span `modules/<name>/` (under
 *   "Server modules"); every folder of `src/web/features/` has its code span `features/<name>/`
 *   (under "The web app"). A span of either form that names no folder is stale.
 * - A path the doc cites in a code span (a word of the span with a slash that ends in a file
 *   extension, or in `/` for a folder) exists: from the repository's root, or for a short form from
 *   `src/`, `src/server/`, `src/server/modules/` or `src/web/` — so `bench/sse-writes.ts`,
 *   `contracts/pipeline.ts`, `http/host-check.ts`, `pipeline/run-driver.ts` and
 *   `features/pipeline/stores/run-reducer.ts` all name files. Globs and placeholders
 *   (`*.routes.ts`, `<id>`), URLs and routes (`/api/…`) and package names (`@scope/name`) are not paths.
 *
 * Only inline code spans count: fenced blocks (the tree at the top, the diagrams) are left out.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DOC_PATH = 'docs/architecture.md';
const doc = readFileSync(path.join(ROOT, DOC_PATH), 'utf8');

/** Where a short path is looked up, in order. */
const PATH_ROOTS = ['', 'src/', 'src/server/', 'src/server/modules/', 'src/web/'];
const FILE_EXTENSION = /\.(?:ts|tsx|mts|cts|js|mjs|cjs|css|json|sql|md|html|sh|ya?ml)$/;
/** Marks a word that stands for many paths or for none of the tree's. */
const NOT_A_PATH = /[*<>{}…|?=]|^[a-z][a-z0-9+.-]*:|^\/|^@[^/]/;

/** The inline code spans of a markdown text, fenced blocks left out. */
function codeSpans(markdown: string): string[] {
  const prose = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, '');
  return [...prose.matchAll(/(`+)([^`]+?)\1(?!`)/g)].map((match) => (match[2] ?? '').trim());
}

function folders(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** The words of the doc's code spans that cite a file or a folder of the tree. */
function citedPaths(spans: readonly string[]): string[] {
  const cited = new Set<string>();
  for (const span of spans) {
    for (const raw of span.split(/\s+/)) {
      const word = raw.replace(/[,;:.)]+$/, '').replace(/^\(/, '');
      if (!word.includes('/') || NOT_A_PATH.test(word)) continue;
      if (FILE_EXTENSION.test(word) || word.endsWith('/')) cited.add(word.replace(/^@\//, 'src/'));
    }
  }
  return [...cited].sort();
}

function resolves(cited: string): boolean {
  const folder = cited.endsWith('/');
  return PATH_ROOTS.some((root) => {
    const full = path.join(ROOT, root, cited);
    if (!existsSync(full)) return false;
    return folder ? statSync(full).isDirectory() : statSync(full).isFile();
  });
}

const spans = codeSpans(doc);
const spanSet = new Set(spans);

describe(DOC_PATH, () => {
  it.each([
    ['src/server/modules', 'modules'],
    ['src/web/features', 'features'],
  ])('has an entry for every folder of %s', (dir, prefix) => {
    const missing = folders(dir).filter((name) => !spanSet.has(`${prefix}/${name}/`));
    expect(
      missing.map((name) => `${dir}/${name} has no \`${prefix}/${name}/\` entry in ${DOC_PATH}`),
    ).toEqual([]);
  });

  it.each([
    ['src/server/modules', 'modules'],
    ['src/web/features', 'features'],
  ])('describes no folder of %s that is gone', (dir, prefix) => {
    const present = new Set(folders(dir));
    const entry = new RegExp(`^${prefix}/([^/\\s]+)/$`);
    const stale = spans
      .map((span) => entry.exec(span)?.[1])
      .filter((name): name is string => name !== undefined && !present.has(name));
    expect(
      [...new Set(stale)].map(
        (name) => `${DOC_PATH} describes \`${prefix}/${name}/\`, but ${dir}/${name} is gone`,
      ),
    ).toEqual([]);
  });

  it('cites only files and folders that exist', () => {
    const cited = citedPaths(spans);
    // The rule reads something: a doc whose spans no longer parse would pass it vacuously.
    expect(cited.length).toBeGreaterThan(50);
    expect(
      cited
        .filter((cite) => !resolves(cite))
        .map(
          (cite) =>
            `${DOC_PATH} cites \`${cite}\`, found under none of ${PATH_ROOTS.map((r) => r || './').join(', ')}`,
        ),
    ).toEqual([]);
  });
});

describe('the checks of the doc', () => {
  it('reads inline spans and leaves fenced blocks out', () => {
    const sample =
      '- `modules/a/` and ``b/c.ts``\n\n```\nmodules/fenced/ `d/e.ts`\n```\n\n`f/g.ts x/y.tsx`, `*.routes.ts`';
    expect(codeSpans(sample)).toEqual(['modules/a/', 'b/c.ts', 'f/g.ts x/y.tsx', '*.routes.ts']);
    expect(citedPaths(codeSpans(sample))).toEqual(['b/c.ts', 'f/g.ts', 'modules/a/', 'x/y.tsx']);
  });

  it('resolves short forms and refuses what is not there', () => {
    expect(resolves('pipeline/run-driver.ts')).toBe(true);
    expect(resolves('http/host-check.ts')).toBe(true);
    expect(resolves('features/pipeline/stores/run-reducer.ts')).toBe(true);
    expect(resolves('src/lint.test.ts')).toBe(true);
    expect(resolves('sandbox/egress/')).toBe(true);
    expect(resolves('pipeline/run-executor.ts')).toBe(false);
    expect(resolves('pipeline/run-driver.ts/')).toBe(false);
  });

  it('skips globs, placeholders, routes, URLs and packages', () => {
    expect(
      citedPaths([
        '*.routes.ts',
        'data/worktrees/<run id>',
        '/api/openapi.json',
        'https://example.com/a.js',
        '@hono/zod-openapi',
        'node --import tsx bench/sse-writes.ts',
        '@/server/db/client.ts',
      ]),
    ).toEqual(['bench/sse-writes.ts', 'src/server/db/client.ts']);
  });
});
