import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gitText } from '@/server/lib/git.js';
import { removeWorktreeIfSafe } from './safe-removal.js';
import { commitFiles, head, makeRepo, type TempRepo } from './test-repo.js';
import { createRunWorktree, listWorktrees } from './worktree.js';

let t: TempRepo;
beforeEach(async () => {
  t = await makeRepo();
});
afterEach(async () => t.cleanup());

const branchOf = async (dir: string) =>
  (await gitText(['symbolic-ref', '--short', 'HEAD'], { cwd: dir })).trim();

describe('createRunWorktree', () => {
  it('creates the branch from the base branch in a new worktree and returns the base commit', async () => {
    const base = await head(t.repo);
    const worktreePath = path.join(t.root, 'worktrees', 'run-1');
    const result = await createRunWorktree({
      repoPath: t.repo,
      worktreePath,
      branch: 'autocoder/demo-1',
      baseBranch: 'main',
    });
    expect(result).toEqual({ baseCommit: base });
    expect(await branchOf(worktreePath)).toBe('autocoder/demo-1');
    expect(await readFile(path.join(worktreePath, 'README.md'), 'utf8')).toBe('# demo\n');
    expect(await head(t.repo, 'autocoder/demo-1')).toBe(base);
  });

  it('reuses an existing worktree of the branch as it is, with uncommitted work', async () => {
    const worktreePath = path.join(t.root, 'wt');
    const opts = { repoPath: t.repo, worktreePath, branch: 'autocoder/reuse', baseBranch: 'main' };
    const first = await createRunWorktree(opts);
    await commitFiles(worktreePath, { 'a.txt': 'a\n' }, 'work');
    await writeFile(path.join(worktreePath, 'draft.txt'), 'not committed');
    await commitFiles(t.repo, { 'main.txt': 'main moved on\n' }, 'main moves');

    const again = await createRunWorktree(opts);
    expect(again.baseCommit).toBe(first.baseCommit);
    expect(await readFile(path.join(worktreePath, 'draft.txt'), 'utf8')).toBe('not committed');
    expect((await listWorktrees(t.repo)).length).toBe(2);
  });

  it('attaches an existing branch after its worktree was removed, reporting the merge base', async () => {
    const worktreePath = path.join(t.root, 'wt');
    const opts = { repoPath: t.repo, worktreePath, branch: 'autocoder/resume', baseBranch: 'main' };
    const { baseCommit } = await createRunWorktree(opts);
    const work = await commitFiles(worktreePath, { 'a.txt': 'a\n' }, 'work');
    await removeWorktreeIfSafe({ repoPath: t.repo, worktreePath, defaultBranch: 'main' });
    await commitFiles(t.repo, { 'main.txt': 'later\n' }, 'main moves');

    const resumed = await createRunWorktree(opts);
    expect(resumed.baseCommit).toBe(baseCommit);
    expect(await head(worktreePath)).toBe(work);
    expect(await readFile(path.join(worktreePath, 'a.txt'), 'utf8')).toBe('a\n');
  });

  it("attaches a branch again after its worktree folder was deleted behind git's back", async () => {
    const first = path.join(t.root, 'gone');
    const opts = { repoPath: t.repo, branch: 'autocoder/lost', baseBranch: 'main' };
    await createRunWorktree({ ...opts, worktreePath: first });
    const work = await commitFiles(first, { 'b.txt': 'b\n' }, 'work');
    await rm(first, { recursive: true, force: true });
    expect((await listWorktrees(t.repo)).find((entry) => entry.branch === 'autocoder/lost')?.prunable).toBe(
      true,
    );

    const second = path.join(t.root, 'again');
    await createRunWorktree({ ...opts, worktreePath: second });
    expect(await head(second)).toBe(work);
    expect((await listWorktrees(t.repo)).some((entry) => entry.prunable)).toBe(false);
  });

  it('refuses a path that is a worktree of another branch, and an invalid branch name', async () => {
    const worktreePath = path.join(t.root, 'wt');
    await createRunWorktree({ repoPath: t.repo, worktreePath, branch: 'autocoder/one', baseBranch: 'main' });
    await expect(
      createRunWorktree({ repoPath: t.repo, worktreePath, branch: 'autocoder/two', baseBranch: 'main' }),
    ).rejects.toThrow(/already a worktree of autocoder\/one/);
    await expect(
      createRunWorktree({
        repoPath: t.repo,
        worktreePath: `${worktreePath}2`,
        branch: 'bad..name',
        baseBranch: 'main',
      }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(
      createRunWorktree({
        repoPath: t.repo,
        worktreePath: `${worktreePath}3`,
        branch: 'ok',
        baseBranch: 'nope',
      }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('10 concurrent calls on one repository all succeed', async () => {
    const base = await head(t.repo);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        createRunWorktree({
          repoPath: t.repo,
          worktreePath: path.join(t.root, 'wts', `run-${i}`),
          branch: `autocoder/parallel-${i}`,
          baseBranch: 'main',
        }),
      ),
    );
    expect(results.every((r) => r.baseCommit === base)).toBe(true);
    const branches = (await listWorktrees(t.repo)).map((w) => w.branch).sort();
    expect(branches).toEqual(
      ['main', ...Array.from({ length: 10 }, (_, i) => `autocoder/parallel-${i}`)].sort(),
    );
  });
});
