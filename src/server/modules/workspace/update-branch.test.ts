import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitAll } from './commit.js';
import { commitFiles, head, makeRepo, type TempRepo } from './test-repo.js';
import { conflictsWithDefault, filesWithConflictMarkers, mergeDefaultIntoWorktree } from './update-branch.js';
import { createRunWorktree } from './worktree.js';

let t: TempRepo;
let worktreePath: string;
const branch = 'autocoder/update-01ABCDEF';
beforeEach(async () => {
  t = await makeRepo();
  await commitFiles(t.repo, { 'shared.txt': 'one\ntwo\nthree\n' }, 'shared');
  worktreePath = path.join(t.root, 'wt');
  await createRunWorktree({ repoPath: t.repo, worktreePath, branch, baseBranch: 'main' });
});
afterEach(async () => t.cleanup());

const opts = () => ({ repoPath: t.repo, worktreePath, branch, defaultBranch: 'main' });

describe('bringing a task branch up to date', () => {
  it('finds no conflict while the default branch has not moved or merges cleanly', async () => {
    await commitFiles(worktreePath, { 'a.txt': 'a\n' }, 'work');
    expect(await conflictsWithDefault(opts())).toEqual([]);
    await commitFiles(t.repo, { 'b.txt': 'b\n' }, 'main moves');
    expect(await conflictsWithDefault(opts())).toEqual([]);
  });

  it('leaves the conflicting files with markers; the next commit completes the merge', async () => {
    const ours = await commitFiles(worktreePath, { 'shared.txt': 'one\nBRANCH\nthree\n' }, 'branch edit');
    const theirs = await commitFiles(
      t.repo,
      { 'shared.txt': 'one\nMAIN\nthree\n', 'b.txt': 'b\n' },
      'main edit',
    );
    expect(await conflictsWithDefault(opts())).toEqual(['shared.txt']);

    const result = await mergeDefaultIntoWorktree(opts());
    expect(result).toEqual({ merged: theirs, conflicts: ['shared.txt'] });
    expect(await filesWithConflictMarkers(worktreePath, ['shared.txt'])).toEqual(['shared.txt']);
    expect(await readFile(path.join(worktreePath, 'shared.txt'), 'utf8')).toContain('<<<<<<<');
    // The branch has not moved yet.
    expect(await head(t.repo, branch)).toBe(ours);

    await writeFile(path.join(worktreePath, 'shared.txt'), 'one\nBRANCH\nMAIN\nthree\n');
    expect(await filesWithConflictMarkers(worktreePath, ['shared.txt'])).toEqual([]);
    const merge = await commitAll(worktreePath, 'Merge main');
    expect(await head(t.repo, `${merge}^1`)).toBe(ours);
    expect(await head(t.repo, `${merge}^2`)).toBe(theirs);
    expect(existsSync(path.join(worktreePath, 'b.txt'))).toBe(true);
    expect(await conflictsWithDefault(opts())).toEqual([]);
  });
});
