import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImportOptions, Project } from '@/contracts/projects.js';
import { type GitHttpHost, startGitHttpHost } from '@/server/testing/git-http-host.js';
import { createTestApp, signedInClient, type TestApp } from '@/server/testing/test-app.js';

const run = promisify(execFile);
const gitIn = (cwd: string, ...args: string[]) =>
  run('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', ...args], { cwd });

let t: TestApp;
let off: TestApp;
let root: string;
let fixture: string;
let gitRoot: string;
let host: GitHttpHost;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'autocoder-import-root-'));
  fixture = path.join(root, 'fixture');
  await mkdir(fixture);
  await gitIn(fixture, 'init', '--quiet', '--initial-branch=main');
  await writeFile(path.join(fixture, 'a.txt'), 'a\n');
  await gitIn(fixture, 'add', '.');
  await gitIn(fixture, 'commit', '--quiet', '-m', 'a');
  // Imports allowed from `root` and from the temp directory, which holds the app's data dir too.
  t = await createTestApp({
    runtime: {
      importRoots: [root, tmpdir()],
      network: { serverOnLoopback: false, allowedHosts: ['localhost'] },
    },
  });
  off = await createTestApp();
  gitRoot = await mkdtemp(path.join(tmpdir(), 'autocoder-import-host-'));
  await run('git', ['clone', '--quiet', '--bare', fixture, path.join(gitRoot, 'repo.git')]);
  host = await startGitHttpHost({ root: gitRoot });
});

afterAll(async () => {
  await host.close();
  await t.close();
  await off.close();
  for (const dir of [root, gitRoot]) await rm(dir, { recursive: true, force: true });
});

describe('import from a path on the server', () => {
  it('is off unless the operator sets AUTOCODER_IMPORT_ROOTS, and the dialog can tell', async () => {
    const { client } = await signedInClient(off.app);
    expect((await client.get<ImportOptions>('/api/projects/import-options')).body).toEqual({
      localImport: false,
    });
    const res = await client.post('/api/projects', { name: 'x', importPath: fixture });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: 'IMPORT_PATH_NOT_ALLOWED',
      message: expect.stringContaining('AUTOCODER_IMPORT_ROOTS'),
    });
    const on = await signedInClient(t.app);
    expect((await on.client.get<ImportOptions>('/api/projects/import-options')).body).toEqual({
      localImport: true,
    });
  });

  it("refuses another user's repository inside the data dir, even by a symbolic link from a root", async () => {
    const alice = await signedInClient(t.app);
    const bob = await signedInClient(t.app);
    const theirs = path.join(t.deps.dataDir, 'repos', alice.projectId);
    const link = path.join(root, `link-${alice.projectId}`);
    await symlink(theirs, link);
    // By name: refused as outside the roots.
    for (const importPath of [theirs, path.join(t.deps.dataDir, 'repos', '..', 'repos', alice.projectId)]) {
      const res = await bob.client.post('/api/projects', { name: 'stolen', importPath });
      expect(res.status, importPath).toBe(400);
      expect(res.body).toMatchObject({ error: 'IMPORT_PATH_NOT_ALLOWED' });
    }
    // By what it leads to: the answer a missing path gets, which says nothing of the link's target.
    const res = await bob.client.post('/api/projects', { name: 'stolen', importPath: link });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      error: 'REPO_IMPORT_FAILED',
      message: `No git repository to import at ${link}`,
    });
    const list = await bob.client.get<{ projects: Project[] }>('/api/projects');
    expect(list.body.projects).toHaveLength(1);
  });

  it('refuses paths outside the roots alike, whether they exist or not', async () => {
    const { client } = await signedInClient(t.app);
    // This checkout is a git repository outside the roots — unless it was cloned under the temp
    // directory, one of this test's roots.
    const checkout = path.relative(tmpdir(), process.cwd()).startsWith('..') ? [process.cwd()] : [];
    for (const importPath of [...checkout, '/nonexistent/repo', '/etc']) {
      const res = await client.post('/api/projects', { name: 'x', importPath });
      expect(res.status, importPath).toBe(400);
      expect(res.body).toMatchObject({ error: 'IMPORT_PATH_NOT_ALLOWED' });
    }
  });

  it('answers the same for a missing path, a file and a directory that is not a repository', async () => {
    const { client } = await signedInClient(t.app);
    const plain = path.join(root, 'plain');
    await mkdir(plain, { recursive: true });
    await writeFile(path.join(root, 'file.txt'), 'x');
    const answers = [];
    for (const importPath of [path.join(root, 'missing'), plain, path.join(root, 'file.txt')]) {
      const res = await client.post<{ message: string }>('/api/projects', { name: 'x', importPath });
      answers.push({
        status: res.status,
        body: { ...res.body, message: res.body.message.replace(importPath, 'P') },
      });
    }
    expect(answers[0]).toEqual({
      status: 422,
      body: { error: 'REPO_IMPORT_FAILED', message: 'No git repository to import at P' },
    });
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
  });

  it("shows the source's own origin URL without credentials, or null; never a server path", async () => {
    const { client } = await signedInClient(t.app);
    const withOrigin = path.join(root, 'with-origin');
    await run('git', ['clone', '--quiet', fixture, withOrigin]);
    await gitIn(withOrigin, 'remote', 'set-url', 'origin', 'https://me:token@example.com/org/app.git');
    const networked = await client.post<Project>('/api/projects', { name: 'o', importPath: withOrigin });
    expect(networked.status).toBe(201);
    expect(networked.body.repoUrl).toBe('https://***@example.com/org/app.git');

    const localOrigin = path.join(root, 'local-origin');
    await run('git', ['clone', '--quiet', fixture, localOrigin]); // its origin is the fixture's path
    const local = await client.post<Project>('/api/projects', { name: 'l', importPath: localOrigin });
    expect(local.body.repoUrl).toBeNull();
    const none = await client.post<Project>('/api/projects', { name: 'n', importPath: fixture });
    expect(none.body.repoUrl).toBeNull();
    // Nor does the clone keep a remote pointing at a server path.
    const clone = path.join(t.deps.dataDir, 'repos', local.body.id);
    expect((await run('git', ['remote', '-v'], { cwd: clone })).stdout).toBe('');
  });
});

describe('import from a URL', () => {
  it('refuses loopback, private and link-local hosts when the server is reachable from elsewhere', async () => {
    const { client } = await signedInClient(t.app);
    const port = new URL(host.url).port;
    const before = host.requests.length;
    for (const where of [
      '127.0.0.1',
      '[::1]',
      '[::ffff:127.0.0.1]',
      '10.0.0.1',
      '169.254.169.254',
      '2130706433',
    ]) {
      const res = await client.post<{ message: string }>('/api/projects', {
        name: 'x',
        repoUrl: `http://${where}:${port}/repo.git`,
      });
      expect(res.status, where).toBe(400);
      expect(res.body).toMatchObject({ error: 'ADDRESS_NOT_ALLOWED' });
    }
    expect(host.requests.length).toBe(before);
  });

  it('clones from a host the operator allowed (AUTOCODER_ALLOWED_HOSTS), pinned to the checked address', async () => {
    const { client } = await signedInClient(t.app);
    const url = `http://localhost:${new URL(host.url).port}/repo.git`;
    const res = await client.post<Project>('/api/projects', { name: 'allowed', repoUrl: url });
    expect(res.status).toBe(201);
    expect(res.body.repoUrl).toBe(url);
  });

  it('refuses git://, file:// and ext:: URLs', async () => {
    const { client } = await signedInClient(t.app);
    for (const repoUrl of ['git://localhost/repo.git', `file://${fixture}`, 'ext::sh -c id']) {
      const res = await client.post('/api/projects', { name: 'x', repoUrl });
      expect(res.status, repoUrl).toBe(400);
      expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR' });
    }
  });
});
