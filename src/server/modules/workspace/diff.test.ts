import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git } from '@/server/lib/git.js';
import { diffRange } from './diff.js';
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
