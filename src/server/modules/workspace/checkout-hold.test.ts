import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git, gitText } from '@/server/lib/git.js';
import { holdCheckout, releaseCheckout, releaseLeftHolds } from './checkout-hold.js';
import { mergeBranch } from './merge.js';
import { commitFiles, head, makeRepo, status, type TempRepo } from './test-repo.js';
import { createRunWorktree } from './worktree.js';

let t: TempRepo;
const branch = 'autocoder/change-01ABCDEF';

beforeEach(async () => {
  t = await makeRepo();
  await commitFiles(t.repo, { 'page.html': 'main\n' }, 'page');
  const worktreePath = path.join(t.root, 'wt');
  await createRunWorktree({ repoPath: t.repo, worktreePath, branch, baseBranch: 'main' });
  await commitFiles(worktreePath, { 'page.html': 'branch\n', 'added.txt': 'new\n' }, 'change the page');
});
afterEach(async () => t.cleanup());

const symbolicHead = async () =>
  (await gitText(['symbolic-ref', '-q', 'HEAD'], { cwd: t.repo }).catch(() => '')).trim();
const page = () => readFile(path.join(t.repo, 'page.html'), 'utf8');
const merge = () => mergeBranch({ repoPath: t.repo, branch, defaultBranch: 'main', message: 'Merge' });

describe('holding a project checkout while its services run', () => {
  it('keeps the files where they are through a merge, and moves them with HEAD back on the branch at release', async () => {
    const before = await head(t.repo);
    await holdCheckout(t.repo, 'main');
    expect(await symbolicHead()).toBe('');
    expect(await head(t.repo)).toBe(before);

    const merged = await merge();
    // The branch moved; the held files did not, and nothing shows as changed in the checkout.
    expect(await head(t.repo, 'refs/heads/main')).toBe(merged.mergeCommit);
    expect(await page()).toBe('main\n');
    expect(existsSync(path.join(t.repo, 'added.txt'))).toBe(false);
    expect(await status(t.repo)).toBe('');

    expect(await releaseCheckout(t.repo)).toEqual({ released: true, from: before, to: merged.mergeCommit });
    expect(await symbolicHead()).toBe('refs/heads/main');
    expect(await page()).toBe('branch\n');
    expect(await readFile(path.join(t.repo, 'added.txt'), 'utf8')).toBe('new\n');
    expect(await status(t.repo)).toBe('');
    expect(await releaseCheckout(t.repo)).toEqual({ released: false, reason: 'not-held' });
  });

  it('keeps the files through a push to the branch (git-http pushes with updateInstead)', async () => {
    const clone = path.join(t.root, 'clone');
    await git(['clone', '--quiet', t.repo, clone]);
    await git(['config', 'receive.denyCurrentBranch', 'updateInstead'], { cwd: t.repo });
    const config = ['-c', 'user.name=Agent', '-c', 'user.email=agent@example.com'];
    await writeFile(path.join(clone, 'page.html'), 'pushed\n');
    await git([...config, 'commit', '-qam', 'push a page'], { cwd: clone });
    await holdCheckout(t.repo, 'main');
    await git(['push', '--quiet', 'origin', 'main'], { cwd: clone });
    const pushed = await head(clone);
    expect(await head(t.repo, 'refs/heads/main')).toBe(pushed);
    expect(await page()).toBe('main\n');
    expect(await releaseCheckout(t.repo)).toMatchObject({ released: true, to: pushed });
    expect(await page()).toBe('pushed\n');
  });

  it('without a hold, a merge moves the checkout at once (as before)', async () => {
    await merge();
    expect(await page()).toBe('branch\n');
    expect(await symbolicHead()).toBe('refs/heads/main');
  });

  it('keeps local edits to other files at release, and stays held while an edit would be overwritten', async () => {
    await holdCheckout(t.repo, 'main');
    await merge();
    await writeFile(path.join(t.repo, 'README.md'), '# edited by hand\n');
    await writeFile(path.join(t.repo, 'page.html'), 'edited by hand\n');
    const refused = await releaseCheckout(t.repo);
    expect(refused).toMatchObject({ released: false, reason: 'local-edits' });
    expect(await symbolicHead()).toBe('');
    expect(await page()).toBe('edited by hand\n');

    await writeFile(path.join(t.repo, 'page.html'), 'main\n'); // the edit is undone
    expect(await releaseCheckout(t.repo)).toMatchObject({ released: true });
    expect(await page()).toBe('branch\n');
    expect(await readFile(path.join(t.repo, 'README.md'), 'utf8')).toBe('# edited by hand\n');
  });

  it('leaves a checkout on another branch alone, and a second hold changes nothing', async () => {
    await holdCheckout(t.repo, 'main');
    const held = await head(t.repo);
    await holdCheckout(t.repo, 'main');
    expect(await head(t.repo)).toBe(held);
    expect(await releaseCheckout(t.repo)).toMatchObject({ released: true });

    await holdCheckout(t.repo, 'other');
    expect(await symbolicHead()).toBe('refs/heads/main');
    expect(await releaseCheckout(t.repo)).toEqual({ released: false, reason: 'not-held' });
  });

  it('releases at start-up the holds a stopped server left, in every project of the data directory', async () => {
    const repos = path.join(t.root, 'repos');
    await mkdir(repos);
    const project = path.join(repos, 'project-1');
    await rename(t.repo, project);
    await holdCheckout(project, 'main');
    await mergeBranch({ repoPath: project, branch, defaultBranch: 'main', message: 'Merge' });
    await mkdir(path.join(repos, 'not-a-repo'));
    // Detached by hand, not by a hold: left as it is.
    const byHand = path.join(repos, 'project-2');
    await git(['clone', '--quiet', project, byHand]);
    await git(['checkout', '--quiet', '--detach'], { cwd: byHand });

    expect(await releaseLeftHolds(repos)).toEqual([]);
    expect(await gitText(['symbolic-ref', '-q', 'HEAD'], { cwd: byHand }).catch(() => 'detached')).toBe(
      'detached',
    );
    expect(await readFile(path.join(project, 'page.html'), 'utf8')).toBe('branch\n');
    expect((await gitText(['symbolic-ref', 'HEAD'], { cwd: project })).trim()).toBe('refs/heads/main');
    expect(await releaseLeftHolds(path.join(t.root, 'missing'))).toEqual([]);
  });
});
