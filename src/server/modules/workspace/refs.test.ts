import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitError, git } from '@/server/lib/git.js';
import { branchCommit, readBranchHead, readHeadCommit, resolveCommit } from './refs.js';
import { listTree } from './repository.js';
import { commitFiles, head, makeRepo, type TempRepo } from './test-repo.js';

let t: TempRepo;
beforeEach(async () => {
  t = await makeRepo();
});
afterEach(async () => t.cleanup());

describe('readBranchHead', () => {
  const bothSay = async (branch: string) => {
    const read = await readBranchHead(t.repo, branch);
    expect(read).toBe(await branchCommit(t.repo, branch));
    return read;
  };

  it('reads a branch as git does: a loose ref, a packed one, a branch with slashes', async () => {
    const main = await head(t.repo);
    await git(['branch', 'feature/x'], { cwd: t.repo });
    expect(await bothSay('main')).toBe(main);
    expect(await bothSay('feature/x')).toBe(main);
    await git(['pack-refs', '--all'], { cwd: t.repo });
    expect(await bothSay('main')).toBe(main);
    expect(await bothSay('feature/x')).toBe(main);
    // A commit after packing writes a loose ref again, which wins over the packed line.
    await git(['commit', '--quiet', '--allow-empty', '-m', 'next'], { cwd: t.repo });
    expect(await bothSay('main')).not.toBe(main);
  });

  it('follows a branch moved, moved back and deleted after it was read', async () => {
    const first = await head(t.repo);
    expect(await bothSay('main')).toBe(first);
    await git(['commit', '--quiet', '--allow-empty', '-m', 'second'], { cwd: t.repo });
    const second = await head(t.repo);
    expect(await bothSay('main')).toBe(second);
    // Back to the first commit: a ref file of the same size, renamed over the other.
    await git(['update-ref', 'refs/heads/main', first], { cwd: t.repo });
    expect(await bothSay('main')).toBe(first);
    await git(['update-ref', 'refs/heads/main', second], { cwd: t.repo });
    expect(await bothSay('main')).toBe(second);
    await git(['branch', 'gone'], { cwd: t.repo });
    expect(await bothSay('gone')).toBe(second);
    await git(['branch', '-D', 'gone'], { cwd: t.repo });
    expect(await bothSay('gone')).toBeNull();
  });

  it('answers null for no such branch, and follows a symbolic ref through git', async () => {
    await git(['branch', 'feature/x'], { cwd: t.repo });
    expect(await bothSay('nope')).toBeNull();
    expect(await bothSay('feature')).toBeNull(); // a folder of refs, not a branch
    await git(['symbolic-ref', 'refs/heads/alias', 'refs/heads/main'], { cwd: t.repo });
    expect(await bothSay('alias')).toBe(await head(t.repo));
    await expect(readBranchHead(t.repo, '--output=x')).rejects.toBeInstanceOf(Error);
  });

  it('reads a worktree of the repository through git', async () => {
    const tree = path.join(t.root, 'tree');
    await git(['worktree', 'add', '--quiet', '-b', 'work', tree], { cwd: t.repo });
    expect(await readBranchHead(tree, 'work')).toBe(await branchCommit(t.repo, 'work'));
  });
});

describe('readHeadCommit', () => {
  it('names the commit git names for HEAD: main checkout, linked worktree, packed ref, detached, symbolic', async () => {
    expect(await readHeadCommit(t.repo)).toBe(await head(t.repo));
    const tree = path.join(t.root, 'tree');
    await git(['worktree', 'add', '--quiet', '-b', 'work', tree], { cwd: t.repo });
    await commitFiles(tree, { 'a.txt': 'a' }, 'on work');
    const onWork = await head(tree);
    expect(onWork).not.toBe(await head(t.repo));
    expect(await readHeadCommit(tree)).toBe(onWork);
    // The branch's loose ref goes into packed-refs: read from there.
    await git(['pack-refs', '--all'], { cwd: t.repo });
    expect(await readHeadCommit(tree)).toBe(onWork);
    await git(['checkout', '--quiet', '--detach'], { cwd: tree });
    await commitFiles(tree, { 'b.txt': 'b' }, 'detached');
    expect(await readHeadCommit(tree)).toBe(await head(tree));
    // A branch that is itself a symbolic ref is not read from the files: git answers.
    await git(['symbolic-ref', 'refs/heads/alias', 'refs/heads/work'], { cwd: t.repo });
    await git(['checkout', '--quiet', 'alias'], { cwd: tree });
    expect(await readHeadCommit(tree)).toBe(onWork);
  });

  it('names the same commits through a linked worktree, and null for an unborn HEAD', async () => {
    expect(await readHeadCommit(t.repo)).toBe(await head(t.repo));
    const tree = path.join(t.root, 'tree');
    await git(['worktree', 'add', '--quiet', '-b', 'work', tree], { cwd: t.repo });
    await commitFiles(tree, { 'a.txt': 'a' }, 'on work');
    expect(await readHeadCommit(tree)).toBe(await head(tree));
    const empty = path.join(t.root, 'empty');
    await git(['init', '--quiet', '--initial-branch=main', empty]);
    expect(await readHeadCommit(empty)).toBeNull();
  });
});

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
