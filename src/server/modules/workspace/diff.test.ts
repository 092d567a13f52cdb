import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git } from '@/server/lib/git.js';
import { diffByFile, diffRange, fileVersions } from './diff.js';
import { commitFiles, head, makeRepo, type TempRepo } from './test-repo.js';

let t: TempRepo;
beforeEach(async () => {
  t = await makeRepo();
});
afterEach(async () => t.cleanup());

describe('diffRange', () => {
  it('lists added, modified, deleted and renamed files with line counts, and the patch', async () => {
    const longText = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n');
    const base = await commitFiles(
      t.repo,
      { 'keep.txt': 'one\ntwo\nthree\n', 'remove.txt': 'a\nb\n', 'old-name.txt': `${longText}\n` },
      'base',
    );
    await writeFile(path.join(t.repo, 'keep.txt'), 'one\nTWO\nthree\nfour\n');
    await rm(path.join(t.repo, 'remove.txt'));
    await git(['mv', 'old-name.txt', 'new name.txt'], { cwd: t.repo });
    await writeFile(path.join(t.repo, 'added.ts'), 'export {};\n');
    await writeFile(path.join(t.repo, 'blob.bin'), Buffer.from([0, 1, 2, 0]));
    await git(['add', '-A'], { cwd: t.repo });
    await git(['commit', '--quiet', '-m', 'change'], { cwd: t.repo });

    const diff = await diffRange(t.repo, base, 'HEAD');
    expect(diff.truncated).toBe(false);
    const byPath = Object.fromEntries(diff.files.map((f) => [f.path, f]));
    expect(byPath['keep.txt']).toMatchObject({ status: 'modified', additions: 2, deletions: 1 });
    expect(byPath['remove.txt']).toMatchObject({ status: 'deleted', additions: 0, deletions: 2 });
    expect(byPath['added.ts']).toMatchObject({ status: 'added', additions: 1, deletions: 0 });
    expect(byPath['new name.txt']).toMatchObject({
      status: 'renamed',
      oldPath: 'old-name.txt',
      additions: 0,
      deletions: 0,
    });
    expect(byPath['blob.bin']).toMatchObject({ status: 'added', binary: true });
    expect(diff.files).toHaveLength(5);
    expect(diff.patch).toContain('diff --git a/keep.txt b/keep.txt');
    expect(diff.patch).toContain('+TWO');
    expect(diff.patch).toContain('rename from old-name.txt');
  });

  it('is empty between equal commits and cuts a large patch at a line end', async () => {
    const base = await head(t.repo);
    expect(await diffRange(t.repo, base, base)).toEqual({ patch: '', files: [], truncated: false });

    const big = Array.from({ length: 5000 }, (_, i) => `a fairly long line number ${i}`).join('\n');
    await commitFiles(t.repo, { 'big.txt': big }, 'big');
    const diff = await diffRange(t.repo, base, 'HEAD', 10_000);
    expect(diff.truncated).toBe(true);
    expect(diff.patch.length).toBeLessThanOrEqual(10_000);
    expect(diff.patch.endsWith('\n')).toBe(true);
    expect(diff.files).toEqual([
      { path: 'big.txt', status: 'added', additions: 5000, deletions: 0, binary: false },
    ]);
  });

  it('rejects unknown commits and option-like revisions', async () => {
    await expect(diffRange(t.repo, 'nope', 'HEAD')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(diffRange(t.repo, '--output=/tmp/x', 'HEAD')).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
  });
});

/** A base commit and a head commit touching files of every kind, some with awkward names. */
async function everyKindOfChange(repo: string) {
  const longText = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n');
  const base = await commitFiles(
    repo,
    {
      'keep.txt': 'one\ntwo\nthree\n',
      'remove.txt': 'a\nb\n',
      'old-name.txt': `${longText}\n`,
      'huge.txt': 'start\n',
    },
    'base',
  );
  await writeFile(path.join(repo, 'keep.txt'), 'one\nTWO\nthree\nfour\n');
  await rm(path.join(repo, 'remove.txt'));
  await git(['mv', 'old-name.txt', 'new name.txt'], { cwd: repo });
  await writeFile(path.join(repo, 'blob.bin'), Buffer.from([0, 1, 2, 0]));
  await writeFile(path.join(repo, 'huge.txt'), Array.from({ length: 30 }, (_, i) => `h${i}`).join('\n'));
  // Names that pathspec magic, globbing or a naive split would get wrong.
  await writeFile(path.join(repo, ':(top)*?[x].ts'), 'export const odd = 1;\n');
  await writeFile(path.join(repo, 'é diff --git b.md'), '# über\n');
  await git(['add', '-A'], { cwd: repo });
  await git(['commit', '--quiet', '-m', 'change'], { cwd: repo });
  return { base, head: await head(repo) };
}

describe('diffByFile', () => {
  it('gives every file its own patch, and leaves out binary ones and those over the line limit', async () => {
    const { base, head: to } = await everyKindOfChange(t.repo);
    const files = await diffByFile(t.repo, base, to, {
      maxFileLines: 25,
      maxFileBytes: 100_000,
      maxTotalBytes: 1_000_000,
    });
    const byPath = Object.fromEntries(files.map((f) => [f.path, f]));
    expect(files).toHaveLength(7);
    expect(byPath['keep.txt']).toMatchObject({
      status: 'modified',
      additions: 2,
      deletions: 1,
      truncated: false,
    });
    expect(byPath['keep.txt']?.patch).toMatch(/^diff --git a\/keep.txt b\/keep.txt\n/);
    expect(byPath['keep.txt']?.patch).toContain('+TWO\n');
    expect(byPath['keep.txt']?.patch).not.toContain('remove.txt');
    expect(byPath['remove.txt']).toMatchObject({ status: 'deleted', deletions: 2 });
    expect(byPath['remove.txt']?.patch).toContain('-a\n-b\n');
    expect(byPath['new name.txt']).toMatchObject({ status: 'renamed', oldPath: 'old-name.txt' });
    expect(byPath['new name.txt']?.patch).toContain('rename to new name.txt');
    expect(byPath['blob.bin']).toMatchObject({ status: 'added', binary: true, patch: '', truncated: false });
    expect(byPath['huge.txt']).toMatchObject({ additions: 30, deletions: 1, patch: '', truncated: true });
    expect(byPath[':(top)*?[x].ts']?.patch).toContain('+export const odd = 1;');
    expect(byPath['é diff --git b.md']?.patch).toContain('+# über');
    for (const file of files) {
      if (file.patch) expect(file.patch.match(/^diff --git /gm)).toHaveLength(1);
    }
  });

  it('marks files past the byte budgets as truncated', async () => {
    const { base, head: to } = await everyKindOfChange(t.repo);
    const files = await diffByFile(t.repo, base, to, {
      maxFileLines: 2000,
      maxFileBytes: 150,
      maxTotalBytes: 1_000_000,
    });
    expect(files.find((f) => f.path === 'huge.txt')).toMatchObject({ truncated: true, patch: '' });
    expect(files.find((f) => f.path === 'keep.txt')).toMatchObject({ truncated: false });
    const cut = await diffByFile(t.repo, base, to, {
      maxFileLines: 2000,
      maxFileBytes: 100_000,
      maxTotalBytes: 200,
    });
    expect(cut.filter((f) => f.truncated).length).toBeGreaterThan(0);
    for (const file of cut.filter((f) => !f.truncated && !f.binary))
      expect(file.patch).toMatch(/^diff --git /);
  });
});

describe('fileVersions', () => {
  it('reads both sides of a changed file by the objects the diff names', async () => {
    const { base, head: to } = await everyKindOfChange(t.repo);
    const keep = await fileVersions(t.repo, base, to, 'keep.txt', 10_000);
    expect(keep).toMatchObject({
      before: 'one\ntwo\nthree\n',
      after: 'one\nTWO\nthree\nfour\n',
      truncated: false,
    });
    expect(keep.patch).toContain('+TWO');
    const added = await fileVersions(t.repo, base, to, ':(top)*?[x].ts', 10_000);
    expect(added).toMatchObject({ before: null, after: 'export const odd = 1;\n' });
    const removed = await fileVersions(t.repo, base, to, 'remove.txt', 10_000);
    expect(removed).toMatchObject({ before: 'a\nb\n', after: null });
    const renamed = await fileVersions(t.repo, base, to, 'new name.txt', 10_000);
    expect(renamed.file.oldPath).toBe('old-name.txt');
    expect(renamed.before).toBe(renamed.after);
    expect(renamed.patch).toContain('rename from old-name.txt');
    expect(await fileVersions(t.repo, base, to, 'blob.bin', 10_000)).toMatchObject({
      before: null,
      after: '',
      patch: '',
    });
  });

  it('answers the same from a diff already computed', async () => {
    const { base, head: to } = await everyKindOfChange(t.repo);
    const known = await diffByFile(t.repo, base, to, {
      maxFileLines: 25,
      maxFileBytes: 100_000,
      maxTotalBytes: 1_000_000,
    });
    for (const filePath of ['keep.txt', 'new name.txt', 'remove.txt', 'huge.txt', 'blob.bin']) {
      const fresh = await fileVersions(t.repo, base, to, filePath, 10_000);
      const reused = await fileVersions(t.repo, base, to, filePath, 10_000, known);
      expect({ ...reused, file: undefined }, filePath).toEqual({ ...fresh, file: undefined });
      expect(reused.file).toMatchObject(fresh.file);
    }
  });

  it('cuts contents and patch at the byte cap', async () => {
    const { base, head: to } = await everyKindOfChange(t.repo);
    const huge = await fileVersions(t.repo, base, to, 'huge.txt', 40);
    expect(huge.truncated).toBe(true);
    expect(huge.after?.length).toBe(40);
    expect(huge.patch.length).toBeLessThanOrEqual(40);
  });

  it('answers DIFF_FILE_NOT_FOUND for any path the diff does not change', async () => {
    const { base, head: to } = await everyKindOfChange(t.repo);
    for (const asked of ['README.md', '../repo/keep.txt', './keep.txt', 'old-name.txt', '.git/config', '*']) {
      await expect(fileVersions(t.repo, base, to, asked, 10_000)).rejects.toMatchObject({
        code: 'DIFF_FILE_NOT_FOUND',
      });
    }
  });
});
