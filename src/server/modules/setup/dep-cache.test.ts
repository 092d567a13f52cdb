import { mkdir, mkdtemp, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DepCache } from './dep-cache.js';
import { lockfilesOf, proposeSetup } from './setup-detect.js';

const P1 = '6f1c2a9e-0000-4000-8000-000000000001';
const P2 = '6f1c2a9e-0000-4000-8000-000000000002';

describe('what setup AutoCoder proposes', () => {
  it('follows the lockfile at the root, a JavaScript one first', () => {
    expect(proposeSetup(['package.json', 'package-lock.json'])).toEqual({
      command: 'npm ci',
      because: 'package-lock.json',
    });
    expect(proposeSetup(['pnpm-lock.yaml'])?.command).toBe('pnpm install --frozen-lockfile');
    expect(proposeSetup(['yarn.lock', '.yarnrc.yml'])?.command).toBe('yarn install --immutable');
    expect(proposeSetup(['yarn.lock'])?.command).toBe('yarn install --frozen-lockfile');
    expect(proposeSetup(['bun.lock'])?.command).toBe('bun install --frozen-lockfile');
    expect(proposeSetup(['uv.lock', 'pyproject.toml'])?.command).toBe('uv sync --frozen');
    expect(proposeSetup(['requirements-dev.txt'])?.command).toContain('-r requirements-dev.txt');
    expect(proposeSetup(['go.mod', 'go.sum'])?.command).toBe('go mod download');
    expect(proposeSetup(['Cargo.toml', 'Cargo.lock'])?.command).toBe('cargo fetch --locked');
    expect(proposeSetup(['README.md', 'src'])).toBeNull();
    expect(lockfilesOf(['README.md', 'yarn.lock', 'package.json', 'package-lock.json'])).toEqual([
      'package-lock.json',
      'yarn.lock',
    ]);
  });
});

describe('the dependency cache', () => {
  let root: string;
  let cache: DepCache;
  const worktree = (name: string) => path.join(root, name);

  async function installed(name: string, lockfile: string, bytes = 1000) {
    const dir = worktree(name);
    await mkdir(path.join(dir, 'node_modules', 'pkg'), { recursive: true });
    await writeFile(path.join(dir, 'package-lock.json'), lockfile);
    await writeFile(path.join(dir, 'node_modules', 'pkg', 'index.js'), 'x'.repeat(bytes));
    await symlink('../pkg/index.js', path.join(dir, 'node_modules', 'link.js'));
    return dir;
  }

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'autocoder-depcache-'));
    cache = new DepCache({
      root: path.join(root, 'cache'),
      projectMaxBytes: 150_000,
      totalMaxBytes: 160_000,
    });
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('keys by the command and the lockfiles, and gives a later worktree its own copy, links as links', async () => {
    const first = await installed('a', '{"v":1}');
    const key = await cache.keyOf(first, 'npm ci');
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(await cache.keyOf(first, 'npm install')).not.toBe(key);
    await cache.save(P1, key!, first, 'npm ci', ['node_modules']);

    const second = worktree('b');
    await mkdir(second);
    await writeFile(path.join(second, 'package-lock.json'), '{"v":1}');
    expect(await cache.keyOf(second, 'npm ci')).toBe(key);
    const hit = await cache.restore(P1, key!, second);
    expect(hit?.paths).toEqual(['node_modules']);
    expect(await readlink(path.join(second, 'node_modules', 'link.js'))).toBe('../pkg/index.js');
    // Its own copy: a change in one worktree reaches neither the cache nor the other.
    await writeFile(path.join(second, 'node_modules', 'pkg', 'index.js'), 'changed');
    const third = worktree('c');
    await mkdir(third);
    await cache.restore(P1, key!, third);
    expect(await readFile(path.join(third, 'node_modules', 'pkg', 'index.js'), 'utf8')).toBe(
      'x'.repeat(1000),
    );

    await writeFile(path.join(second, 'package-lock.json'), '{"v":2}');
    expect(await cache.keyOf(second, 'npm ci')).not.toBe(key);
    const none = worktree('d');
    await mkdir(none);
    expect(await cache.keyOf(none, 'npm ci')).toBeNull();
  });

  it('never writes through what the worktree already has at one of its paths', async () => {
    const first = await installed('a', '{"v":1}');
    const key = (await cache.keyOf(first, 'npm ci'))!;
    await cache.save(P1, key, first, 'npm ci', ['node_modules', '.git', '../escape']);
    expect((await cache.info(P1)).entries[0]?.paths).toEqual(['node_modules']);
    const second = worktree('b');
    const elsewhere = worktree('elsewhere');
    await mkdir(second);
    await mkdir(elsewhere);
    await symlink(elsewhere, path.join(second, 'node_modules'));
    expect(await cache.restore(P1, key, second)).toBeNull();
    await expect(readFile(path.join(elsewhere, 'pkg', 'index.js'))).rejects.toThrow();
  });

  it('evicts the least recently used entries past a project’s cap and the total cap, and clears a project', async () => {
    const keys: string[] = [];
    for (const [n, project] of [
      [1, P1],
      [2, P1],
      [3, P2],
    ] as const) {
      const dir = await installed(`w${n}`, `{"v":${n}}`, 50_000);
      const key = (await cache.keyOf(dir, 'npm ci'))!;
      keys.push(key);
      await cache.save(project, key, dir, 'npm ci', ['node_modules']);
    }
    // P1 holds two entries of ~62 KB (directories count 4 KB each) under its 150 KB cap; P2's
    // third pushes the total past 160 KB: the oldest of all goes.
    const p1 = await cache.info(P1);
    const p2 = await cache.info(P2);
    expect(p1.bytes + p2.bytes).toBeLessThanOrEqual(160_000);
    expect(p2.entries.map((e) => e.key)).toEqual([keys[2]]);
    expect(p1.entries.map((e) => e.key)).toEqual([keys[1]]);
    await cache.clear(P1);
    expect((await cache.info(P1)).entries).toEqual([]);
    expect((await cache.info(P2)).entries).toHaveLength(1);
  });

  it('keeps nothing of an install larger than the project’s cap', async () => {
    const small = new DepCache({
      root: path.join(root, 'small'),
      projectMaxBytes: 10_000,
      totalMaxBytes: 10_000,
    });
    const dir = await installed('big', '{"v":"big"}', 50_000);
    const key = (await small.keyOf(dir, 'npm ci'))!;
    await small.save(P1, key, dir, 'npm ci', ['node_modules']);
    expect((await small.info(P1)).entries).toEqual([]);
    const next = worktree('after-big');
    await mkdir(next);
    expect(await small.restore(P1, key, next)).toBeNull();
  });

  it('runs one install per key at a time', async () => {
    const order: string[] = [];
    let release!: () => void;
    const first = cache.once(P1, 'a'.repeat(64), async () => {
      order.push('first starts');
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      order.push('first ends');
    });
    const second = cache.once(P1, 'a'.repeat(64), async () => {
      order.push('second starts');
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['first starts']);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first starts', 'first ends', 'second starts']);
  });
});
