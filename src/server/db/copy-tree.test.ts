import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copyTree } from './copy-tree.js';

describe('copyTree', () => {
  let root = '';
  afterEach(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('copies files, nested directories and links with their contents and modes, leaving the source as it was', async () => {
    root = await mkdtemp(path.join(tmpdir(), 'autocoder-copy-tree-'));
    const from = path.join(root, 'from');
    await mkdir(path.join(from, 'base', '1'), { recursive: true });
    await chmod(path.join(from, 'base'), 0o700);
    await writeFile(path.join(from, 'PG_VERSION'), '17\n');
    await chmod(path.join(from, 'PG_VERSION'), 0o600);
    const big = Buffer.alloc(3 * 1024 * 1024, 7);
    await writeFile(path.join(from, 'base', '1', 'heap'), big);
    for (let i = 0; i < 40; i++) await writeFile(path.join(from, 'base', `f${i}`), `file ${i}`);
    await symlink('PG_VERSION', path.join(from, 'version-link'));

    const to = path.join(root, 'to');
    await copyTree(from, to);

    expect(await readFile(path.join(to, 'PG_VERSION'), 'utf8')).toBe('17\n');
    expect((await stat(path.join(to, 'PG_VERSION'))).mode & 0o777).toBe(0o600);
    expect((await stat(path.join(to, 'base'))).mode & 0o777).toBe(0o700);
    expect((await readFile(path.join(to, 'base', '1', 'heap'))).equals(big)).toBe(true);
    for (let i = 0; i < 40; i++)
      expect(await readFile(path.join(to, 'base', `f${i}`), 'utf8')).toBe(`file ${i}`);
    expect((await lstat(path.join(to, 'version-link'))).isSymbolicLink()).toBe(true);
    expect(await readlink(path.join(to, 'version-link'))).toBe('PG_VERSION');
    expect(await readFile(path.join(from, 'PG_VERSION'), 'utf8')).toBe('17\n');
  });

  it('refuses a target that exists, so a half-made data directory is never mixed with another', async () => {
    root = await mkdtemp(path.join(tmpdir(), 'autocoder-copy-tree-'));
    await mkdir(path.join(root, 'from'));
    await mkdir(path.join(root, 'to'));
    await expect(copyTree(path.join(root, 'from'), path.join(root, 'to'))).rejects.toThrow(/EEXIST/);
  });
});
