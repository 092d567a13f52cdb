import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git } from '@/server/lib/git.js';
import { closeGitObjectReaders, openGitObjectReaders } from '@/server/lib/git-objects.js';
import { readFilesForContext, repoMap, shownCut } from './context.js';
import { commitFiles, makeRepo, type TempRepo } from './test-repo.js';

let t: TempRepo;
beforeEach(async () => {
  t = await makeRepo();
});
afterEach(async () => t.cleanup());

describe('repoMap', () => {
  it('lists the files of HEAD with sizes', async () => {
    await commitFiles(t.repo, { 'src/a.ts': 'x'.repeat(123), 'src/big.bin': 'y'.repeat(2048) }, 'files');
    await writeFile(path.join(t.repo, 'uncommitted.txt'), 'not in HEAD');
    expect(await repoMap(t.repo, 10_000)).toBe('README.md (7 B)\nsrc/a.ts (123 B)\nsrc/big.bin (2.0 KB)');
  });

  it('starts no cat-file reader for the directory it maps (a run asks once per worktree)', async () => {
    await commitFiles(t.repo, { 'src/a.ts': 'x' }, 'files');
    closeGitObjectReaders();
    expect(await repoMap(t.repo, 10_000)).toContain('src/a.ts');
    expect(openGitObjectReaders()).toBe(0);
  });

  it('maps nothing for a repository without commits', async () => {
    const unborn = path.join(t.root, 'unborn');
    await git(['init', '--quiet', '--initial-branch=main', unborn]);
    expect(await repoMap(unborn, 10_000)).toBe('');
  });

  it('stays within the budget and says how many files it left out', async () => {
    const files = Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [`f${String(i).padStart(2, '0')}.txt`, 'x']),
    );
    await commitFiles(t.repo, files, 'many');
    for (const budget of [0, 5, 20, 40, 100, 333]) {
      const map = await repoMap(t.repo, budget);
      expect(map.length).toBeLessThanOrEqual(budget);
      if (budget >= 40) {
        const lines = map.split('\n');
        const listed = lines.length - 1;
        expect(lines.at(-1)).toBe(`… ${51 - listed} more files`);
      }
    }
    expect((await repoMap(t.repo, 100_000)).split('\n')).toHaveLength(51);
  });
});

describe('readFilesForContext', () => {
  beforeEach(async () => {
    await commitFiles(t.repo, { 'src/a.ts': 'aaaa', 'src/b.ts': 'bbbbbbbb', 'src/c.ts': 'cc' }, 'files');
  });

  it('reads the working tree, skipping missing, binary, directories and repeats', async () => {
    await writeFile(path.join(t.repo, 'src/a.ts'), 'edited');
    await writeFile(path.join(t.repo, 'image.png'), Buffer.from([0x89, 0x50, 0, 0]));
    const files = await readFilesForContext(
      t.repo,
      ['src/a.ts', 'missing.ts', 'image.png', 'src', './src/a.ts', 'src/c.ts'],
      1000,
    );
    expect(files).toEqual([
      { path: 'src/a.ts', content: 'edited', truncated: false, size: 6 },
      { path: 'src/c.ts', content: 'cc', truncated: false, size: 2 },
    ]);
  });

  it('keeps to the total budget, cutting the last file that partly fits', async () => {
    const files = await readFilesForContext(t.repo, ['src/a.ts', 'src/b.ts', 'src/c.ts'], 10);
    expect(files).toEqual([
      { path: 'src/a.ts', content: 'aaaa', truncated: false, size: 4 },
      { path: 'src/b.ts', content: 'bbbbbb', truncated: true, size: 8 },
    ]);
    expect(shownCut(files)).toEqual([{ path: 'src/b.ts', shownChars: 6, shownLines: 1, size: 8 }]);
  });

  it('is confined to the worktree: unsafe paths and outside symlinks are skipped', async () => {
    const outside = path.join(t.root, 'outside');
    await mkdir(outside);
    await writeFile(path.join(outside, 'secret.txt'), 'secret');
    await symlink(outside, path.join(t.repo, 'escape'));
    await symlink(path.join(outside, 'secret.txt'), path.join(t.repo, 'secret-link'));
    await symlink('src/c.ts', path.join(t.repo, 'inside-link'));
    const files = await readFilesForContext(
      t.repo,
      [
        '../outside/secret.txt',
        '/etc/hostname',
        '.git/config',
        'escape/secret.txt',
        'secret-link',
        'inside-link',
      ],
      1000,
    );
    expect(files).toEqual([{ path: 'inside-link', content: 'cc', truncated: false, size: 2 }]);
  });
});
