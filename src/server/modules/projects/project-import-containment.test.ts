import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Project } from '@/contracts/projects.js';
import { createTestApp, signedInClient, type TestApp, type TestClient } from '@/server/testing/test-app.js';

const run = promisify(execFile);
const gitIn = (cwd: string, ...args: string[]) =>
  run('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', ...args], { cwd });

/** One root the operator allows, the app's data dir allowed too (a careless operator), one outside. */
let t: TestApp;
let root: string;
let outside: string;
let bob: TestClient;
/** Alice's repository in the data dir, holding a file nobody else may read. */
let theirs: string;
let theirCommit: string;

async function importAnswer(importPath: string) {
  const res = await bob.post<{ message: string }>('/api/projects', { name: 'x', importPath });
  const body = { ...res.body, message: res.body.message?.replace(importPath, 'P') };
  return { status: res.status, body };
}

/** A bare repository in the roots whose main branch names `commit`, and nothing else of its own. */
async function bareWith(name: string, commit: string): Promise<string> {
  const dir = path.join(root, name);
  await run('git', ['init', '--quiet', '--bare', '--initial-branch=main', dir]);
  // Written by hand: git would refuse a ref to a commit it cannot see yet.
  await writeFile(path.join(dir, 'refs', 'heads', 'main'), `${commit}\n`);
  return dir;
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'autocoder-contain-root-'));
  outside = await mkdtemp(path.join(tmpdir(), 'autocoder-contain-outside-'));
  const roots = [root];
  t = await createTestApp({ runtime: { importRoots: roots } });
  // The data dir exists once the app does: inside the roots, so that only its own rule refuses it.
  roots.push(t.deps.dataDir);
  const alice = await signedInClient(t.app);
  theirs = path.join(t.deps.dataDir, 'repos', alice.projectId);
  await writeFile(path.join(theirs, 'secret.txt'), 'alice only\n');
  await gitIn(theirs, 'add', 'secret.txt');
  await gitIn(theirs, 'commit', '--quiet', '-m', 'secret');
  theirCommit = (await run('git', ['rev-parse', 'HEAD'], { cwd: theirs })).stdout.trim();
  ({ client: bob } = await signedInClient(t.app));
});

afterAll(async () => {
  await t.close();
  for (const dir of [root, outside]) await rm(dir, { recursive: true, force: true });
});

describe('a local import reads nothing outside the roots or inside the data dir', () => {
  it('refuses every way around, with the answer a missing path gets', async () => {
    const missing = await importAnswer(path.join(root, 'missing'));
    expect(missing).toEqual({
      status: 422,
      body: { error: 'REPO_IMPORT_FAILED', message: 'No git repository to import at P' },
    });

    // A `.git` file naming alice's git dir.
    const gitfile = path.join(root, 'gitfile');
    await mkdir(gitfile);
    await writeFile(path.join(gitfile, '.git'), `gitdir: ${path.join(theirs, '.git')}\n`);
    // A relative one, climbing out of the root.
    const relative = path.join(root, 'relative');
    await mkdir(relative);
    await writeFile(
      path.join(relative, '.git'),
      `gitdir: ${path.relative(relative, path.join(theirs, '.git'))}\n`,
    );
    // `.git` a symbolic link to alice's git dir.
    const linked = path.join(root, 'linked');
    await mkdir(linked);
    await symlink(path.join(theirs, '.git'), path.join(linked, '.git'));
    // A bare repository of its own whose objects are alice's, by an alternate…
    const alternate = await bareWith('alternate.git', theirCommit);
    await writeFile(
      path.join(alternate, 'objects/info/alternates'),
      `${path.join(theirs, '.git/objects')}\n`,
    );
    // …by an alternate of an alternate (each in the roots but the last)…
    const middle = await bareWith('middle.git', theirCommit);
    await writeFile(path.join(middle, 'objects/info/alternates'), `${path.join(theirs, '.git/objects')}\n`);
    const nested = await bareWith('nested.git', theirCommit);
    await writeFile(path.join(nested, 'objects/info/alternates'), '../../middle.git/objects\n');
    // …or by a symbolic link for its object directory.
    const objectsLink = await bareWith('objects-link.git', theirCommit);
    await rm(path.join(objectsLink, 'objects'), { recursive: true });
    await symlink(path.join(theirs, '.git/objects'), path.join(objectsLink, 'objects'));
    // A linked worktree whose git dir is in the roots but whose common dir is not.
    const elsewhere = path.join(outside, 'repo');
    await mkdir(elsewhere);
    await gitIn(elsewhere, 'init', '--quiet', '--initial-branch=main');
    await gitIn(elsewhere, 'commit', '--quiet', '--allow-empty', '-m', 'outside');
    const worktree = path.join(root, 'worktree-out');
    await gitIn(elsewhere, 'worktree', 'add', '--quiet', worktree, '-b', 'wt');
    const [name] = await readdir(path.join(elsewhere, '.git', 'worktrees'));
    const movedGitDir = path.join(root, 'worktree-gitdir');
    await rename(path.join(elsewhere, '.git', 'worktrees', name ?? ''), movedGitDir);
    await writeFile(path.join(movedGitDir, 'commondir'), `${path.join(elsewhere, '.git')}\n`);
    await writeFile(path.join(worktree, '.git'), `gitdir: ${movedGitDir}\n`);

    for (const importPath of [
      gitfile,
      relative,
      linked,
      alternate,
      nested,
      objectsLink,
      worktree,
      movedGitDir,
    ]) {
      expect(await importAnswer(importPath), importPath).toEqual(missing);
    }
    const list = await bob.get<{ projects: Project[] }>('/api/projects');
    expect(list.body.projects).toHaveLength(1);
  });

  it('imports a repository, a linked worktree and an alternate that all stay inside the roots', async () => {
    const main = path.join(root, 'main');
    await mkdir(main);
    await gitIn(main, 'init', '--quiet', '--initial-branch=main');
    await writeFile(path.join(main, 'a.txt'), 'a\n');
    await gitIn(main, 'add', 'a.txt');
    await gitIn(main, 'commit', '--quiet', '-m', 'a');
    const worktree = path.join(root, 'main-feature');
    await gitIn(main, 'worktree', 'add', '--quiet', worktree, '-b', 'feature');
    await writeFile(path.join(worktree, 'b.txt'), 'b\n');
    await gitIn(worktree, 'add', 'b.txt');
    await gitIn(worktree, 'commit', '--quiet', '-m', 'b');
    const shared = path.join(root, 'shared');
    await run('git', ['clone', '--quiet', '--shared', main, shared]);

    for (const [importPath, branch, file] of [
      [main, 'main', 'a.txt'],
      [worktree, 'feature', 'b.txt'],
      [shared, 'main', 'a.txt'],
    ] as const) {
      const res = await bob.post<Project>('/api/projects', { name: path.basename(importPath), importPath });
      expect(res.status, importPath).toBe(201);
      expect(res.body.defaultBranch).toBe(branch);
      const tree = await bob.get<{ entries: { path: string }[] }>(`/api/projects/${res.body.id}/tree`);
      expect(tree.body.entries.map((e) => e.path)).toContain(file);
      // The clone stands alone: no alternate of its own pointing back at the source.
      const clone = path.join(t.deps.dataDir, 'repos', res.body.id);
      await expect(run('cat', [path.join(clone, '.git/objects/info/alternates')])).rejects.toThrow();
    }
  });
});
