import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git } from '@/server/lib/git.js';
import { executorFor, makeWorktree, type TestWorktree } from './test-worktree.js';

let t: TestWorktree;
beforeEach(async () => {
  t = await makeWorktree({
    '.gitignore': 'dist/\n*.log\n',
    'src/board.ts': 'export function parseDate(s: string) {\n  return new Date(s);\n}\n',
    'src/card.tsx': "import { parseDate } from './board';\nparseDate('x');\n",
    'docs/notes.md': 'parseDate is documented here\n',
  });
  await t.write('dist/bundle.js', 'parseDate();\n');
  await t.write('debug.log', 'parseDate\n');
  await t.write('src/new-file.ts', 'const d = parseDate("2024");\n');
});
afterEach(() => t.cleanup());

describe('list_files', () => {
  it('lists tracked and new files, not what git ignores', async () => {
    const result = await executorFor(t).ok('list_files', {});
    expect(result.output.split('\n')).toEqual([
      '.gitignore',
      'README.md',
      'docs/notes.md',
      'src/board.ts',
      'src/card.tsx',
      'src/new-file.ts',
    ]);
    expect(result.summary).toBe('Listed files — 6 files');
  });

  it('lists under a directory, by glob, and by both; a deleted file is gone', async () => {
    const tools = executorFor(t);
    expect((await tools.ok('list_files', { path: 'src/' })).output.split('\n')).toEqual([
      'src/board.ts',
      'src/card.tsx',
      'src/new-file.ts',
    ]);
    await rm(path.join(t.worktree, 'src/board.ts'));
    expect((await tools.ok('list_files', { glob: '*.{ts,md}' })).output.split('\n')).toEqual([
      'README.md',
      'docs/notes.md',
      'src/new-file.ts',
    ]);
    expect((await tools.ok('list_files', { path: 'src', glob: '*.tsx' })).output).toBe('src/card.tsx');
    expect((await tools.ok('list_files', { glob: 'src/**' })).summary).toBe(
      'Listed files matching src/** — 2 files',
    );
    expect((await tools.ok('list_files', { path: 'nowhere' })).output).toBe('No files under nowhere.');
  });

  it('lists a file in conflict (unmerged in the index) once', async () => {
    // main changes the README one way, the task branch another: merging leaves it in conflict.
    const repo = path.join(t.root, 'repo');
    await writeFile(path.join(repo, 'README.md'), '# from main\n');
    await git(['commit', '--quiet', '--no-verify', '-am', 'main side'], { cwd: repo });
    await t.commit({ 'README.md': '# from the branch\n' });
    await git(['merge', 'main'], { cwd: t.worktree, answerCodes: [1] });
    expect((await git(['ls-files', '-u'], { cwd: t.worktree })).stdout.toString()).toContain('README.md');
    const listed = (await executorFor(t).ok('list_files', {})).output.split('\n');
    expect(listed.filter((file) => file === 'README.md')).toHaveLength(1);
  });

  it('says how many were left out past the cap', async () => {
    for (let i = 0; i < 12; i++) await t.write(`gen/f${String(i).padStart(2, '0')}.ts`, `${i}\n`);
    const result = await executorFor(t, { limits: { maxListEntries: 5 } }).ok('list_files', { path: 'gen' });
    expect(result.output.split('\n')).toEqual([
      'gen/f00.ts',
      'gen/f01.ts',
      'gen/f02.ts',
      'gen/f03.ts',
      'gen/f04.ts',
      '[7 more file(s) not shown; narrow with path or glob.]',
    ]);
    expect(result.summary).toBe('Listed files under gen — 12 files');
  });

  it('refuses a directory outside or in .git', async () => {
    const tools = executorFor(t);
    expect((await tools.error('list_files', { path: '../' })).error).toMatch(/contains a "\.\." segment/);
    expect((await tools.error('list_files', { path: '.git' })).error).toMatch(/touches \.git/);
    expect((await tools.error('list_files', { glob: '../*' })).error).toMatch(/contains a "\.\." segment/);
  });
});

describe('search', () => {
  it('finds in tracked and untracked files, not ignored ones, with file:line:text', async () => {
    const result = await executorFor(t).ok('search', { pattern: 'parseDate\\(' });
    expect(result.output.split('\n')).toEqual([
      'src/board.ts:1:export function parseDate(s: string) {',
      "src/card.tsx:2:parseDate('x');",
      'src/new-file.ts:1:const d = parseDate("2024");',
    ]);
    expect(result.summary).toBe("Searched 'parseDate\\(' — 3 matches in 3 files");
  });

  it('respects the glob, fixed strings and case', async () => {
    const tools = executorFor(t);
    expect((await tools.ok('search', { pattern: 'parseDate', glob: '*.tsx' })).output.split('\n')).toEqual([
      "src/card.tsx:1:import { parseDate } from './board';",
      "src/card.tsx:2:parseDate('x');",
    ]);
    expect((await tools.ok('search', { pattern: 'parseDate(s', fixed: true })).output).toBe(
      'src/board.ts:1:export function parseDate(s: string) {',
    );
    expect((await tools.ok('search', { pattern: 'PARSEDATE IS' })).output).toBe('No matches.');
    expect((await tools.ok('search', { pattern: 'PARSEDATE IS', caseSensitive: false })).output).toBe(
      'docs/notes.md:1:parseDate is documented here',
    );
  });

  it('caps the matches and says how many more', async () => {
    await t.write('many.txt', 'hit\n'.repeat(30));
    const result = await executorFor(t, { limits: { maxSearchMatches: 10 } }).ok('search', {
      pattern: 'hit',
    });
    const lines = result.output.split('\n');
    expect(lines).toHaveLength(11);
    expect(lines[9]).toBe('many.txt:10:hit');
    expect(lines[10]).toBe('[20 more match(es) not shown; narrow the pattern or glob.]');
    expect(result.summary).toBe("Searched 'hit' — 30 matches in 1 file");
  });

  it('does not enter a nested repository or follow a link out', async () => {
    const nested = path.join(t.worktree, 'vendor/nested');
    await mkdir(nested, { recursive: true });
    await git(['init', '--quiet', nested]);
    await writeFile(path.join(nested, 'inside.ts'), 'parseDate from a nested repository\n');
    await writeFile(path.join(t.outside, 'o.ts'), 'parseDate outside\n');
    await symlink(t.outside, path.join(t.worktree, 'out'));
    const tools = executorFor(t);
    expect((await tools.ok('search', { pattern: 'parseDate (from|outside)' })).output).toBe('No matches.');
    expect((await tools.ok('list_files', { path: 'vendor' })).output).toBe('No files under vendor.');
  });

  it('says what is wrong with a bad regular expression', async () => {
    const result = await executorFor(t).error('search', { pattern: 'parseDate(' });
    expect(result.error).toMatch(/^search failed: .*parenthesis/);
  });
});
