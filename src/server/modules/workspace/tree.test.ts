import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git } from '@/server/lib/git.js';
import { commitFiles, head, makeRepo, type TempRepo } from './test-repo.js';
import { treeFiles } from './tree.js';

let t: TempRepo;
beforeEach(async () => {
  t = await makeRepo();
});
afterEach(async () => t.cleanup());

describe('treeFiles', () => {
  it('lists every file of the whole tree with sizes, names verbatim', async () => {
    await commitFiles(
      t.repo,
      { 'src/deep/a.ts': 'abc', 'with space.txt': 'x', 'tab\there.txt': 'yy', 'new\nline.md': '' },
      'files',
    );
    const files = await treeFiles(path.join(t.repo, 'src'), await head(t.repo));
    expect(files).toEqual([
      { path: 'README.md', size: 7 },
      { path: 'new\nline.md', size: 0 },
      { path: 'src/deep/a.ts', size: 3 },
      { path: 'tab\there.txt', size: 2 },
      { path: 'with space.txt', size: 1 },
    ]);
  });

  it('counts symlinks as files and leaves submodules out', async () => {
    await symlink('README.md', path.join(t.repo, 'link'));
    await git(['add', 'link'], { cwd: t.repo });
    const readme = await head(t.repo);
    await git(['update-index', '--add', '--cacheinfo', `160000,${readme},vendor/lib`], { cwd: t.repo });
    await git(['commit', '--quiet', '-m', 'link and submodule'], { cwd: t.repo });
    expect(await treeFiles(t.repo, 'HEAD')).toEqual([
      { path: 'README.md', size: 7 },
      { path: 'link', size: 'README.md'.length },
    ]);
  });

  it('refuses a revision git would read as an option', async () => {
    await expect(treeFiles(t.repo, '--output=/tmp/x')).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});
