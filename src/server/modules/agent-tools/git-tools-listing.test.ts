import { appendFile, lstat, lutimes, mkdir, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git } from '@/server/lib/git.js';
import { listingCache } from './git-tools-listing.js';
import { executorFor, makeWorktree, type TestWorktree } from './test-worktree.js';

/**
 * The listing cache of list_files (git-tools-listing.ts): a listing is used again only while
 * nothing it was made from changed, whoever changes the tree. Each test first dates the whole tree
 * an hour back, so that nothing in it is "racy" (changed too recently to tell a later change by
 * its times) and the cache is used: no test depends on how fast it runs.
 */
let t: TestWorktree;
beforeEach(async () => {
  listingCache.enabled = true;
  t = await makeWorktree({
    '.gitignore': 'dist/\n*.log\n',
    'src/board.ts': 'export const board = 1;\n',
    'src/card.tsx': 'export const card = 2;\n',
    'docs/notes.md': 'notes\n',
  });
  await t.write('src/new-file.ts', 'new\n');
  await t.write('dist/bundle.js', 'bundle\n');
  await t.write('logs/run.log', 'log\n');
  await mkdir(path.join(t.worktree, 'empty/deeper'), { recursive: true });
});
afterEach(async () => {
  listingCache.enabled = true;
  await t.cleanup();
});

/** Sets every time in the tree (repository, worktree, git's files) an hour and a fraction back. */
async function dateBack(dir = t.root): Promise<void> {
  const when = Date.now() / 1000 - 3600.123456;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const abs = path.join(dir, entry.name);
    if (entry.isDirectory()) await dateBack(abs);
    await lutimes(abs, when, when);
  }
  await lutimes(dir, when, when);
}

async function listed(input: Record<string, unknown> = {}): Promise<string[]> {
  const result = await executorFor(t).ok('list_files', input);
  return result.output.startsWith('No files') ? [] : result.output.split('\n');
}

/** Lists twice on a tree at rest: the second listing comes from the cache. */
async function cachedAtRest(): Promise<string[]> {
  await dateBack();
  const first = await listed();
  const hits = listingCache.hits;
  expect(await listed()).toEqual(first);
  expect(listingCache.hits).toBe(hits + 1);
  return first;
}

describe('the listing cache', () => {
  it('serves a tree at rest from the cache, as git lists it', async () => {
    expect(await cachedAtRest()).toEqual([
      '.gitignore',
      'README.md',
      'docs/notes.md',
      'src/board.ts',
      'src/card.tsx',
      'src/new-file.ts',
    ]);
    expect(await listed({ path: 'src', glob: '*.ts' })).toEqual(['src/board.ts', 'src/new-file.ts']);
  });

  it("keeps the listing through an edit, and sees the tools' own writes and deletes at the next call", async () => {
    const before = await cachedAtRest();
    const tools = executorFor(t);
    // An edit renames a new file over the old one: the directory changed, not what it holds.
    await tools.ok('edit_file', { path: 'src/board.ts', oldText: '1', newText: '2' });
    const hits = listingCache.hits;
    expect(await listed()).toEqual(before);
    expect(listingCache.hits).toBe(hits + 1);
    await tools.ok('write_file', { path: 'src/written.ts', content: 'x\n' });
    expect(await listed({ path: 'src' })).toContain('src/written.ts');
    await tools.ok('delete_file', { path: 'src/card.tsx' });
    expect(await listed({ path: 'src' })).toEqual(['src/board.ts', 'src/new-file.ts', 'src/written.ts']);
  });

  it('sees files made, deleted and renamed by others (a check, a service)', async () => {
    await cachedAtRest();
    await writeFile(path.join(t.worktree, 'src/outside.ts'), 'x\n');
    expect(await listed()).toContain('src/outside.ts');
    await dateBack();
    await listed();
    await rm(path.join(t.worktree, 'docs/notes.md'));
    await rename(path.join(t.worktree, 'src/board.ts'), path.join(t.worktree, 'src/renamed.ts'));
    const after = await listed();
    expect(after).not.toContain('docs/notes.md');
    expect(after).not.toContain('src/board.ts');
    expect(after).toContain('src/renamed.ts');
  });

  it('sees a file made in a directory that had nothing listed: empty, or only ignored files', async () => {
    await cachedAtRest();
    await writeFile(path.join(t.worktree, 'empty/deeper/first.ts'), 'x\n');
    expect(await listed()).toContain('empty/deeper/first.ts');
    await dateBack();
    await listed();
    await writeFile(path.join(t.worktree, 'logs/notes.txt'), 'x\n');
    expect(await listed()).toContain('logs/notes.txt');
  });

  it('follows the ignore rules and the index as they change, and never lists what git ignores', async () => {
    await cachedAtRest();
    await writeFile(path.join(t.worktree, 'dist/late.ts'), 'x\n');
    expect(await listed()).not.toContain('dist/late.ts');
    // A rule appended in place: the file's own times change, not its directory's.
    await appendFile(path.join(t.worktree, '.gitignore'), 'src/new-file.ts\n');
    expect(await listed()).not.toContain('src/new-file.ts');
    await dateBack();
    await listed();
    await git(['add', '-f', 'logs/run.log'], { cwd: t.worktree });
    expect(await listed()).toContain('logs/run.log');
    await dateBack();
    await listed();
    await git(['rm', '--cached', '--quiet', 'logs/run.log'], { cwd: t.worktree });
    expect(await listed()).not.toContain('logs/run.log');
  });

  it('sees a directory replaced by a link, and a link is listed as git lists it', async () => {
    await cachedAtRest();
    await rm(path.join(t.worktree, 'docs'), { recursive: true });
    await writeFile(path.join(t.worktree, 'target.md'), 'x\n');
    await symlink('target.md', path.join(t.worktree, 'docs'));
    const after = await listed();
    expect(after).toContain('docs');
    expect(after).not.toContain('docs/notes.md');
    expect((await lstat(path.join(t.worktree, 'docs'))).isSymbolicLink()).toBe(true);
  });

  it('matches paths and globs as git does (the same answers with and without the cache)', async () => {
    for (const file of [
      'a*c.ts',
      'abc.ts',
      'é.ts',
      'spaced name.md',
      '.hidden/x.ts',
      'src/sub/deep/d.test.ts',
      'src/sub/b.ts',
      'src/sub.ts',
      'src/[x].ts',
      'srcx/y.ts',
      'tests/a/b/c.spec.tsx',
    ])
      await t.write(file, 'x\n');
    await dateBack();
    const inputs: Record<string, string>[] = [
      { glob: '*.ts' },
      { glob: '**/*.ts' },
      { glob: 'src/*' },
      { glob: 'src/**' },
      { glob: 'src/**/d.test.ts' },
      { glob: '**/sub/**' },
      { glob: '*' },
      { glob: '**' },
      { glob: 'a?c.ts' },
      { glob: '?.ts' },
      { glob: 'src/*/b.ts' },
      { glob: '*.{ts,md}' },
      { glob: '**/*test*' },
      { glob: 'docs/' },
      { glob: 'a*' },
      { glob: 'src*' },
      { glob: 'src/[x].ts' },
      { glob: 'tests/**/*.tsx' },
      { glob: '*/*.ts' },
      { glob: 's**/b.ts' },
      { path: 'src' },
      { path: 'src/sub' },
      { path: 'src/sub.ts' },
      { path: 'sr' },
      { path: 'src', glob: '*.ts' },
      { path: 'src/sub', glob: '**' },
      { path: '.hidden', glob: '*' },
    ];
    for (const input of inputs) {
      listingCache.enabled = false;
      const byGit = await listed(input);
      listingCache.enabled = true;
      expect({ input, files: await listed(input) }).toEqual({ input, files: byGit });
    }
    expect(listingCache.hits).toBeGreaterThan(0);
  });
});
