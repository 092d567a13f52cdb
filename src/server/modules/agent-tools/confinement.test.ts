import { lstat, mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executorFor, makeWorktree, type TestWorktree } from './test-worktree.js';

/** Every path the model sends stays in the worktree and out of git's files; a refusal touches nothing. */
let t: TestWorktree;
let secret: string;
const SECRET = 'outside, not to be read or changed\n';
beforeEach(async () => {
  t = await makeWorktree({ 'src/board.ts': 'one\n' });
  secret = path.join(t.outside, 'secret.txt');
  await writeFile(secret, SECRET);
});
afterEach(() => t.cleanup());

const exists = (file: string) =>
  stat(file).then(
    () => true,
    () => false,
  );

async function expectAllRefused(paths: string[], pattern: RegExp) {
  const tools = executorFor(t, { beforeWrite: async () => expect.fail('beforeWrite on a refused path') });
  for (const p of paths) {
    const results = [
      await tools.call('read_file', { path: p }),
      await tools.call('edit_file', { path: p, oldText: 'outside', newText: 'changed' }),
      await tools.call('write_file', { path: p, content: 'changed' }),
      await tools.call('delete_file', { path: p }),
    ];
    for (const result of results) {
      expect(result.ok, `${p}: ${JSON.stringify(result)}`).toBe(false);
      if (!result.ok) expect(result.error).toMatch(pattern);
    }
  }
}

describe('confinement', () => {
  it('refuses ../ and absolute paths, and touches nothing outside', async () => {
    await expectAllRefused(
      ['../outside/secret.txt', 'src/../../outside/secret.txt'],
      /contains a "\.\." segment/,
    );
    await expectAllRefused(
      [secret, '/etc/passwd'],
      /absolute path \(paths are relative to the repository root\)/,
    );
    expect(await readFile(secret, 'utf8')).toBe(SECRET);
    expect(await exists(path.join(t.root, 'x'))).toBe(false);
  });

  it('refuses a symbolic link out, to a file or through a directory, for reading and writing', async () => {
    await symlink(secret, path.join(t.worktree, 'link.txt'));
    await symlink(t.outside, path.join(t.worktree, 'outdir'));
    await expectAllRefused(
      ['link.txt'],
      /link\.txt(: goes through a symlink that leaves the worktree| is a symbolic link; change the file it points to instead)/,
    );
    await expectAllRefused(
      ['outdir/secret.txt', 'outdir/new.txt'],
      /goes through a symlink that leaves the worktree/,
    );
    expect(await readFile(secret, 'utf8')).toBe(SECRET);
    expect(await exists(path.join(t.outside, 'new.txt'))).toBe(false);
    const listed = await executorFor(t).ok('search', { pattern: 'outside, not' });
    expect(listed.output).toBe('No matches.');
  });

  it('refuses .git/config and sub/.git/HEAD, in any case, and a link into .git', async () => {
    await mkdir(path.join(t.worktree, 'sub/.git'), { recursive: true });
    await writeFile(path.join(t.worktree, 'sub/.git/HEAD'), 'ref: refs/heads/main\n');
    const gitFile = await readFile(path.join(t.worktree, '.git'), 'utf8');
    await expectAllRefused(
      ['.git/config', '.git', 'sub/.git/HEAD', 'sub/.GIT/HEAD', '.git/../x'],
      /touches \.git|\.\./,
    );
    expect(await readFile(path.join(t.worktree, '.git'), 'utf8')).toBe(gitFile);
    expect(await readFile(path.join(t.worktree, 'sub/.git/HEAD'), 'utf8')).toBe('ref: refs/heads/main\n');
    await symlink('sub/.git', path.join(t.worktree, 'gitlink'));
    await expectAllRefused(['gitlink/HEAD'], /goes through a symlink into \.git/);
  });

  it('follows a link that stays inside for reading, under its real name', async () => {
    await symlink('src', path.join(t.worktree, 'alias'));
    const tools = executorFor(t);
    expect((await tools.ok('read_file', { path: 'alias/board.ts' })).summary).toBe(
      'Read src/board.ts (1 line)',
    );
    // Read in full through the alias counts for the real file.
    await tools.ok('write_file', { path: 'src/board.ts', content: 'two\n' });
    expect((await t.read('src/board.ts')).toString()).toBe('two\n');
  });

  it('never writes through a link, even one that stays inside', async () => {
    await symlink('src/board.ts', path.join(t.worktree, 'alias.ts'));
    const tools = executorFor(t);
    await tools.ok('read_file', { path: 'alias.ts' });
    const result = await tools.error('write_file', { path: 'alias.ts', content: 'through\n' });
    expect(result.error).toBe('alias.ts is a symbolic link; change the file it points to instead');
    expect((await t.read('src/board.ts')).toString()).toBe('one\n');
    expect((await lstat(path.join(t.worktree, 'alias.ts'))).isSymbolicLink()).toBe(true);
  });

  it('refuses a backslash, a NUL and an empty path', async () => {
    const tools = executorFor(t);
    expect((await tools.error('read_file', { path: 'src\\board.ts' })).error).toMatch(/contains a backslash/);
    expect((await tools.error('read_file', { path: 'src/\0board.ts' })).error).toMatch(/contains NUL/);
    expect((await tools.error('read_file', { path: '' })).error).toMatch(/path: Too small/);
  });
});
