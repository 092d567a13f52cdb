import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gitText } from '@/server/lib/git.js';
import { commitAll } from './commit.js';
import { head, makeRepo, status, type TempRepo } from './test-repo.js';

let t: TempRepo;
beforeEach(async () => {
  t = await makeRepo();
});
afterEach(async () => t.cleanup());

const count = async () => Number((await gitText(['rev-list', '--count', 'HEAD'], { cwd: t.repo })).trim());

describe('commitAll', () => {
  it('returns null and makes no commit when nothing changed', async () => {
    const before = await head(t.repo);
    expect(await commitAll(t.repo, 'nothing')).toBeNull();
    expect(await head(t.repo)).toBe(before);
  });

  it('commits every change as AutoCoder, one commit per call, and returns the new HEAD', async () => {
    await writeFile(path.join(t.repo, 'a.txt'), 'a');
    await writeFile(path.join(t.repo, 'README.md'), 'changed');
    const first = await commitAll(t.repo, '#1 feat: first');
    expect(first).toBe(await head(t.repo));
    expect(await count()).toBe(2);
    expect(await status(t.repo)).toBe('');
    const meta = await gitText(['log', '-1', '--format=%an <%ae>%n%B'], { cwd: t.repo });
    expect(meta.trim()).toBe('AutoCoder <autocoder@localhost>\n#1 feat: first');

    expect(await commitAll(t.repo, 'again')).toBeNull();
    await writeFile(path.join(t.repo, 'b.txt'), 'b');
    const second = await commitAll(t.repo, 'second');
    expect(second).not.toBe(first);
    expect(await count()).toBe(3);
  });

  it('commits with a message of its own when given only whitespace, and fails loudly on a real error', async () => {
    await writeFile(path.join(t.repo, 'c.txt'), 'c');
    const sha = await commitAll(t.repo, '  \n ');
    expect(sha).toBe(await head(t.repo));
    expect((await gitText(['log', '-1', '--format=%B'], { cwd: t.repo })).trim()).toBe('AutoCoder changes');
    await writeFile(path.join(t.repo, 'd.txt'), 'd');
    await writeFile(path.join(t.repo, '.git', 'index.lock'), '');
    await expect(commitAll(t.repo, 'locked')).rejects.toThrow();
  });

  it('returns the new commit in a linked worktree on a branch and on a detached HEAD, as git names it', async () => {
    const linked = path.join(t.root, 'linked');
    await gitText(['worktree', 'add', '--quiet', '-b', 'autocoder/x', linked], { cwd: t.repo });
    await writeFile(path.join(linked, 'e.txt'), 'e');
    const onBranch = await commitAll(linked, 'on a branch');
    expect(onBranch).toMatch(/^[0-9a-f]{40}$/);
    expect(onBranch).toBe(await head(linked));
    expect(onBranch).toBe((await gitText(['rev-parse', 'autocoder/x'], { cwd: t.repo })).trim());
    expect(await head(t.repo)).not.toBe(onBranch);

    await gitText(['checkout', '--quiet', '--detach'], { cwd: linked });
    await writeFile(path.join(linked, 'f.txt'), 'f');
    const detached = await commitAll(linked, 'detached');
    expect(detached).not.toBe(onBranch);
    expect(detached).toBe(await head(linked));
  });
});
