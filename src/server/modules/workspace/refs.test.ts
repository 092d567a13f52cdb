import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitError, git } from '@/server/lib/git.js';
import { branchCommit, resolveCommit } from './refs.js';
import { listTree } from './repository.js';
import { head, makeRepo, type TempRepo } from './test-repo.js';

let t: TempRepo;
beforeEach(async () => {
  t = await makeRepo();
});
afterEach(async () => t.cleanup());

describe('branchCommit and resolveCommit', () => {
  it('name the commit of a branch, a tag or HEAD', async () => {
    const main = await head(t.repo);
    await git(['tag', '-a', '-m', 'v1', 'v1'], { cwd: t.repo });
    expect(await branchCommit(t.repo, 'main')).toBe(main);
    expect(await resolveCommit(t.repo, 'HEAD')).toBe(main);
    // An annotated tag resolves to its commit, not the tag object.
    expect(await resolveCommit(t.repo, 'v1')).toBe(main);
  });

  it('give null when the name has no commit: a missing branch, an unborn HEAD', async () => {
    expect(await branchCommit(t.repo, 'nope')).toBeNull();
    const empty = path.join(t.root, 'empty');
    await git(['init', '--quiet', '--initial-branch=main', empty]);
    expect(await branchCommit(empty, 'main')).toBeNull();
    expect(await resolveCommit(empty, 'HEAD')).toBeNull();
  });

  it('let other git failures through instead of reading them as "no commit"', async () => {
    const notRepo = path.join(t.root, 'plain');
    await mkdir(notRepo);
    await expect(branchCommit(notRepo, 'main')).rejects.toBeInstanceOf(GitError);
    // The project tree reads its branch through branchCommit: a broken repository is an error, not an empty tree.
    await expect(listTree(notRepo, 'main')).rejects.toBeInstanceOf(GitError);
  });

  it('refuse names git would read as options', async () => {
    await expect(branchCommit(t.repo, '-b')).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(resolveCommit(t.repo, '--all')).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});
