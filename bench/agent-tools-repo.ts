// The generated repository of the agent-tools part of `npm run bench` (bench/agent-tools.ts): a
// TypeScript project of about 3,000 files — 36 feature areas of models, services, components,
// tests, docs and fixtures that import one another and shared utilities (agent-tools-sources.ts) —
// with one 6,000-line file (src/core/registry.ts), a check (scripts/check-imports.mjs) and, for
// the fix-a-check task, one import that does not resolve. Committed, and checked out as a run's
// worktree is (`git worktree add`), with ignored dependencies and build output beside it.
import { mkdir, mkdtemp, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { git } from '../src/server/lib/git.js';
import {
  AREAS,
  DOC_TOPICS,
  doc,
  ENTITIES,
  model,
  modelTest,
  SERVICES,
  service,
  serviceFile,
  serviceTest,
  sharedModule,
  sharedModules,
  VIEWS,
  view,
} from './agent-tools-sources.js';

export { BROKEN_FILE, BROKEN_IMPORT, DATE_MODULE, MONEY_MODULE } from './agent-tools-sources.js';

/** The big file and the one line the first task changes inside it. */
export const BIG_FILE = 'src/core/registry.ts';
export const BIG_FILE_LINES = 6000;
export const TARGET_FUNCTION = 'computeShippingRate';
export const TARGET_OLD_LINE = '  const surcharge = order.weightKg > 20 ? 12.5 : 4.0;';
export const TARGET_NEW_LINE = '  const surcharge = order.weightKg > 20 ? 14.0 : 4.0;';
/** The index the second task's new module is exported from, and the new module. */
export const REPORTS_INDEX = 'src/reports/index.ts';
export const NEW_MODULE = 'src/reports/order-summary-line.ts';
/** The check: every relative import of src/ and test/ (or of the files named) resolves to a file. */
export const CHECK_SCRIPT = 'scripts/check-imports.mjs';

/** src/core/registry.ts: 6,000 lines of generated rules, computeShippingRate in the middle. */
export function bigFile(): string {
  const lines = [
    '// Generated rule registry: one function per rule. Do not reorder; ids are stable.',
    "import { formatMoney } from '../shared/money/format-money.js';",
    '',
    'export interface Order {',
    '  id: string;',
    '  totalCents: number;',
    '  weightKg: number;',
    '  country: string;',
    '}',
    '',
    'export interface RuleResult {',
    '  id: number;',
    '  amount: number;',
    '  reason: string;',
    '}',
    '',
  ];
  let rule = 1;
  let target = false;
  while (lines.length < BIG_FILE_LINES - 12) {
    if (lines.length >= 2990 && !target) {
      target = true;
      lines.push(
        '/** The shipping rate of an order in euros: by weight, with a surcharge for heavy parcels. */',
        `export function ${TARGET_FUNCTION}(order: Order): number {`,
        '  const base = order.weightKg * 0.85;',
        TARGET_OLD_LINE,
        '  return Math.round((base + surcharge) * 100) / 100;',
        '}',
        '',
      );
      continue;
    }
    const id = String(rule).padStart(4, '0');
    const kind = ['domestic discount', 'export duty', 'bulk rebate'][rule % 3];
    lines.push(
      `/** Rule ${id}: ${kind}. */`,
      `export function rule${id}(order: Order): RuleResult {`,
      `  const base = order.totalCents * 0.${id};`,
      `  const weight = order.weightKg * ${(rule % 97) + 1}.${rule % 10};`,
      `  if (order.country === '${['DE', 'FR', 'NL', 'IT', 'ES'][rule % 5]}') {`,
      `    return { id: ${rule}, amount: base + weight, reason: 'domestic ${id}' };`,
      '  }',
      `  return { id: ${rule}, amount: base - weight, reason: 'export ${id}' };`,
      '}',
      '',
    );
    rule++;
  }
  lines.push('/** Every rule, in id order. */', 'export const RULES = [');
  while (lines.length < BIG_FILE_LINES - 2) lines.push(`  'rule-${lines.length}',`);
  lines.push('] as const;', 'export const describeTotal = (cents: number) => formatMoney(cents);');
  return `${lines.join('\n')}\n`;
}

const CHECK = String.raw`#!/usr/bin/env node
// Every relative import of src/ and test/ (or of the files named) resolves to a file.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

function walk(dir, out) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(file, out);
    else if (/\.tsx?$/.test(entry.name)) out.push(file);
  }
  return out;
}

const files = process.argv.length > 2 ? process.argv.slice(2) : [...walk('src', []), ...walk('test', [])];
const problems = [];
let imports = 0;
for (const file of files) {
  readFileSync(file, 'utf8').split('\n').forEach((line, index) => {
    const match = /from '(\.{1,2}\/[^']+)'/.exec(line);
    if (!match) return;
    imports++;
    const target = path.join(path.dirname(file), match[1]);
    const candidates = [target.replace(/\.js$/, '.ts'), target.replace(/\.js$/, '.tsx'), target];
    if (!candidates.some((candidate) => existsSync(candidate)))
      problems.push(file + ':' + (index + 1) + ": cannot resolve '" + match[1] + "'");
  });
}
for (const problem of problems) console.error(problem);
console.log('checked ' + files.length + ' files, ' + imports + ' imports: ' + (problems.length ? problems.length + ' unresolved' : 'ok'));
process.exit(problems.length ? 1 : 0);
`;

/** The repository's files, by path (3,002 of them). */
export function generateRepository(): Map<string, string> {
  const files = new Map<string, string>();
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  files.set(
    'package.json',
    json({ name: 'shopfront', private: true, type: 'module', scripts: { check: `node ${CHECK_SCRIPT}` } }),
  );
  files.set(
    'tsconfig.json',
    json({ compilerOptions: { strict: true, jsx: 'react-jsx' }, include: ['src', 'test'] }),
  );
  files.set('.gitignore', 'node_modules/\ndist/\ncoverage/\n*.log\n');
  files.set('README.md', '# shopfront\n\nA generated shop back office: one folder per area under src/.\n');
  files.set(CHECK_SCRIPT, CHECK);
  sharedModules.forEach(({ file, fn }, n) => {
    files.set(file, sharedModule(file, fn, n));
  });
  files.set(BIG_FILE, bigFile());
  for (let i = 0; i < 20; i++) {
    files.set(
      `src/core/engine-${String(i).padStart(2, '0')}.ts`,
      `import { type Order, RULES } from './registry.js';\n\nexport const engine${i} = (order: Order) => RULES.length + order.weightKg * ${i};\n`,
    );
  }
  AREAS.forEach((area, a) => {
    const exports: string[] = [];
    ENTITIES.forEach((entity, e) => {
      files.set(`src/${area}/model/${area}-${entity}.ts`, model(area, entity, a * 8 + e));
      exports.push(`export * from './model/${area}-${entity}.js';`);
      if (e < 6) files.set(`test/${area}/${area}-${entity}.test.ts`, modelTest(area, entity));
    });
    SERVICES.forEach((name, s) => {
      const file = serviceFile(area, name);
      files.set(file, service(area, name, a * 14 + s));
      exports.push(`export * from './service/${path.posix.basename(file, '.ts')}.js';`);
      files.set(`test/${area}/${path.posix.basename(file, '.ts')}.test.ts`, serviceTest(area, name));
    });
    VIEWS.forEach((name, v) => {
      files.set(`src/${area}/ui/${area}-${name}.tsx`, view(area, name, a * 10 + v));
    });
    files.set(`src/${area}/index.ts`, `${exports.join('\n')}\n`);
    for (const topic of DOC_TOPICS) files.set(`docs/${area}/${topic}.md`, doc(area, topic));
    for (let f = 0; f < 20; f++) {
      const item = { id: `${area}-${f}`, totalCents: 1000 + f * 37, status: 'active', tags: ['fixture'] };
      files.set(
        `fixtures/${area}/case-${String(f).padStart(2, '0')}.json`,
        json({ area, case: f, items: [item] }),
      );
    }
  });
  return files;
}

export interface GeneratedRepository {
  /** Holds the repository and its worktree. */
  root: string;
  repo: string;
  worktree: string;
  files: number;
  bytes: number;
  baseCommit: string;
}

async function writeAll(dir: string, files: Map<string, string>): Promise<number> {
  let bytes = 0;
  for (const folder of new Set([...files.keys()].map((file) => path.dirname(path.join(dir, file)))))
    await mkdir(folder, { recursive: true });
  const entries = [...files];
  for (let i = 0; i < entries.length; i += 200) {
    await Promise.all(
      entries.slice(i, i + 200).map(([file, content]) => {
        bytes += Buffer.byteLength(content);
        return writeFile(path.join(dir, file), content);
      }),
    );
  }
  return bytes;
}

/** Generates and commits the repository, and checks it out as a run's worktree (`git worktree add`). */
export async function makeBenchRepository(): Promise<GeneratedRepository> {
  const root = await realpath(await mkdtemp(path.join(tmpdir(), 'autocoder-bench-agent-tools-')));
  const repo = path.join(root, 'repo');
  const worktree = path.join(root, 'worktrees', 'run');
  const files = generateRepository();
  await git(['init', '--quiet', '--initial-branch=main', repo]);
  const bytes = await writeAll(repo, files);
  await git(['add', '-A'], { cwd: repo, timeoutMs: 300_000 });
  await git(['-c', 'gc.auto=0', 'commit', '--quiet', '--no-verify', '-m', 'shopfront'], {
    cwd: repo,
    timeoutMs: 300_000,
  });
  const baseCommit = (await git(['rev-parse', 'HEAD'], { cwd: repo })).stdout.toString().trim();
  await git(['worktree', 'add', '--quiet', '-b', 'autocoder/bench-run', worktree], {
    cwd: repo,
    timeoutMs: 300_000,
  });
  // What a worktree holds besides its files once a check has run: dependencies and a build, ignored.
  const ignored = new Map<string, string>();
  for (let i = 0; i < 40; i++) ignored.set(`node_modules/pkg-${i}/index.js`, `module.exports = ${i};\n`);
  for (let i = 0; i < 10; i++) ignored.set(`dist/chunk-${i}.js`, `export const chunk = ${i};\n`);
  await writeAll(worktree, ignored);
  return { root, repo, worktree, files: files.size, bytes, baseCommit };
}

/** Back to the commit: every change and every new file gone (the ignored ones stay). */
export async function resetWorktree(worktree: string): Promise<void> {
  await git(['checkout', '--quiet', '--', '.'], { cwd: worktree, timeoutMs: 60_000 });
  await git(['clean', '-fdq'], { cwd: worktree, timeoutMs: 60_000 });
}
