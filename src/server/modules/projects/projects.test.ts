import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Project, ProjectFile, ProjectTree } from '@/contracts/projects.js';
import { createTestApp, signedInClient, type TestApp } from '@/server/testing/test-app.js';

const run = promisify(execFile);
const gitIn = (cwd: string, ...args: string[]) =>
  run('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', ...args], { cwd });

let t: TestApp;
let fixture: string;

beforeAll(async () => {
  // Imports are allowed from the temp directory, which also holds every test app's data dir.
  t = await createTestApp({ runtime: { importRoots: [tmpdir()] } });
  // A local repository to import: a few files on a branch called "trunk".
  fixture = await mkdtemp(path.join(tmpdir(), 'autocoder-fixture-'));
  await gitIn(fixture, 'init', '--quiet', '--initial-branch=trunk');
  await mkdir(path.join(fixture, 'src'), { recursive: true });
  await writeFile(path.join(fixture, 'README.md'), '# Fixture\n');
  await writeFile(path.join(fixture, 'src', 'index.ts'), 'export const answer = 42;\n');
  await writeFile(path.join(fixture, 'logo.bin'), Buffer.from([0, 1, 2, 3, 0, 255]));
  await gitIn(fixture, 'add', '.');
  await gitIn(fixture, 'commit', '--quiet', '-m', 'fixture');
});
afterAll(async () => {
  await t.close();
  await rm(fixture, { recursive: true, force: true });
});

describe('projects', () => {
  it('creates, lists, renames and deletes projects, trimming names', async () => {
    const { client, projectId } = await signedInClient(t.app);
    const created = await client.post<Project>('/api/projects', { name: '  Second  ' });
    expect(created.status).toBe(201);
    expect(created.body.name).toBe('Second');
    expect(created.body.defaultBranch).toBe('main');
    expect(created.body.repoUrl).toBeNull();

    const list = await client.get<{ projects: Project[] }>('/api/projects');
    expect(list.body.projects.map((p) => p.id)).toEqual([projectId, created.body.id]);

    const renamed = await client.patch<Project>(`/api/projects/${created.body.id}`, { name: 'Renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('Renamed');
    expect((await client.get<Project>(`/api/projects/${created.body.id}`)).body.name).toBe('Renamed');

    expect((await client.delete(`/api/projects/${created.body.id}`)).status).toBe(204);
    expect((await client.get(`/api/projects/${created.body.id}`)).status).toBe(404);
  });

  it('validates names: empty, blank, too long, wrong type', async () => {
    const { client, projectId } = await signedInClient(t.app);
    for (const name of ['', '   ', 'x'.repeat(101), 42, null]) {
      const res = await client.post('/api/projects', { name });
      expect(res.status, JSON.stringify(name)).toBe(400);
      expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR', fields: { name: expect.any(Array) } });
    }
    expect((await client.post('/api/projects', { name: 'x'.repeat(100) })).status).toBe(201);
    expect((await client.patch(`/api/projects/${projectId}`, { name: '  ' })).status).toBe(400);
  });

  it('refuses to delete the last project with a reason', async () => {
    const { client, projectId } = await signedInClient(t.app);
    const res = await client.delete(`/api/projects/${projectId}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'LAST_PROJECT', message: expect.stringMatching(/only project/) });
    expect((await client.get(`/api/projects/${projectId}`)).status).toBe(200);
  });

  it("answers 404 for another user's project, whatever the method", async () => {
    const alice = await signedInClient(t.app);
    const bob = await signedInClient(t.app);
    const id = alice.projectId;
    expect((await bob.client.get(`/api/projects/${id}`)).status).toBe(404);
    expect((await bob.client.patch(`/api/projects/${id}`, { name: 'mine' })).status).toBe(404);
    expect((await bob.client.delete(`/api/projects/${id}`)).status).toBe(404);
    expect((await bob.client.get(`/api/projects/${id}/tree`)).status).toBe(404);
    expect((await bob.client.get(`/api/projects/${id}/file?path=README.md`)).status).toBe(404);
    const list = await bob.client.get<{ projects: Project[] }>('/api/projects');
    expect(list.body.projects.map((p) => p.id)).not.toContain(id);
    expect((await alice.client.get<Project>(`/api/projects/${id}`)).body.name).toBe('My Project');
  });

  it('answers 400 for a malformed id and 404 for an unknown one', async () => {
    const { client } = await signedInClient(t.app);
    expect((await client.get('/api/projects/not-a-uuid')).status).toBe(400);
    expect((await client.get('/api/projects/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });
});

describe('project repositories', () => {
  it('gives a new project a repository with an initial commit on main', async () => {
    const { client, projectId } = await signedInClient(t.app);
    const tree = await client.get<ProjectTree>(`/api/projects/${projectId}/tree`);
    expect(tree.status).toBe(200);
    expect(tree.body.branch).toBe('main');
    expect(tree.body.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(tree.body.entries).toEqual([]);
  });

  it('imports a local repository, keeping its default branch, and serves its files', async () => {
    const { client } = await signedInClient(t.app);
    const res = await client.post<Project>('/api/projects', { name: 'Imported', importPath: fixture });
    expect(res.status).toBe(201);
    expect(res.body.defaultBranch).toBe('trunk');
    // The fixture has no origin: no URL to show, and never the path it was imported from.
    expect(res.body.repoUrl).toBeNull();

    const tree = await client.get<ProjectTree>(`/api/projects/${res.body.id}/tree`);
    expect(tree.body.entries).toEqual([
      { path: 'README.md', size: 10 },
      { path: 'logo.bin', size: 6 },
      { path: 'src/index.ts', size: 26 },
    ]);
    const file = await client.get<ProjectFile>(`/api/projects/${res.body.id}/file?path=src/index.ts`);
    expect(file.body).toEqual({
      path: 'src/index.ts',
      size: 26,
      isText: true,
      truncated: false,
      content: 'export const answer = 42;\n',
    });
    const binary = await client.get<ProjectFile>(`/api/projects/${res.body.id}/file?path=logo.bin`);
    expect(binary.body).toMatchObject({ isText: false, content: '' });
  });

  it('confines file paths to the repository', async () => {
    const { client } = await signedInClient(t.app);
    const { body: project } = await client.post<Project>('/api/projects', {
      name: 'Paths',
      importPath: fixture,
    });
    const unsafe = ['../etc/passwd', '/etc/passwd', 'src/../../x', '.git/config', '.GIT/HEAD', 'a\\b'];
    // The same rules as agents' writes: `.git` in any segment and any case, and its aliases.
    unsafe.push('src/.git/config', 'src/.Git/HEAD', '.git./config', 'git~1/config', 'src/\u0007.ts');
    for (const bad of unsafe) {
      const res = await client.get(`/api/projects/${project.id}/file?path=${encodeURIComponent(bad)}`);
      expect(res.status, bad).toBe(400);
      expect(res.body).toMatchObject({ error: 'INVALID_PATH' });
    }
    expect((await client.get(`/api/projects/${project.id}/file`)).status).toBe(400);
    expect((await client.get(`/api/projects/${project.id}/file?path=missing.txt`)).status).toBe(404);
    expect((await client.get(`/api/projects/${project.id}/file?path=src`)).status).toBe(404);
  });

  it('refuses imports of things that are not repositories with a clear error', async () => {
    const { client } = await signedInClient(t.app);
    const notRepo = await mkdtemp(path.join(tmpdir(), 'autocoder-plain-'));
    try {
      const plain = await client.post('/api/projects', { name: 'x', importPath: notRepo });
      expect(plain.status).toBe(422);
      expect(plain.body).toMatchObject({ error: 'REPO_IMPORT_FAILED' });
      expect(
        (await client.post('/api/projects', { name: 'x', importPath: path.join(tmpdir(), 'does-not-exist') }))
          .status,
      ).toBe(422);
      expect((await client.post('/api/projects', { name: 'x', importPath: 'relative/path' })).status).toBe(
        400,
      );
      expect(
        (await client.post('/api/projects', { name: 'x', repoUrl: 'ext::sh -c touch% /tmp/pwned' })).status,
      ).toBe(400);
      expect(
        (await client.post('/api/projects', { name: 'x', repoUrl: 'https://a/b', importPath: fixture }))
          .status,
      ).toBe(400);
    } finally {
      await rm(notRepo, { recursive: true, force: true });
    }
  });

  it('fails fast with a clear error when a URL cannot be reached, hiding credentials', async () => {
    const { client } = await signedInClient(t.app);
    const started = Date.now();
    // Port 9 on loopback: nothing listens, the connection is refused at once.
    const res = await client.post<{ message: string }>('/api/projects', {
      name: 'Remote',
      repoUrl: 'http://user:s3cret@127.0.0.1:9/repo.git',
    });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ error: 'REPO_IMPORT_FAILED' });
    expect(res.body.message).not.toContain('s3cret');
    expect(Date.now() - started).toBeLessThan(30_000);
    const list = await client.get<{ projects: Project[] }>('/api/projects');
    expect(list.body.projects).toHaveLength(1);
  });

  it('clones from a URL and records it as the canonical URL', async () => {
    // Serve a bare copy of the fixture over git's "dumb" HTTP protocol: plain static files.
    const bare = await mkdtemp(path.join(tmpdir(), 'autocoder-bare-'));
    await run('git', ['clone', '--quiet', '--bare', fixture, bare]);
    await run('git', ['update-server-info'], { cwd: bare });
    const server = createServer(async (req, res) => {
      const file = path.join(bare, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
      if (!file.startsWith(bare)) return void res.writeHead(403).end();
      try {
        res.writeHead(200).end(await readFile(file));
      } catch {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const { client } = await signedInClient(t.app);
      const url = `http://127.0.0.1:${port}/`;
      const res = await client.post<Project>('/api/projects', { name: 'Cloned', repoUrl: url });
      expect(res.status).toBe(201);
      expect(res.body.repoUrl).toBe(url);
      expect(res.body.defaultBranch).toBe('trunk');
      const tree = await client.get<ProjectTree>(`/api/projects/${res.body.id}/tree`);
      expect(tree.body.entries.map((e) => e.path)).toEqual(['README.md', 'logo.bin', 'src/index.ts']);
      // file:// and other local schemes are not URLs to clone; local repositories come in through importPath.
      expect((await client.post('/api/projects', { name: 'x', repoUrl: `file://${fixture}` })).status).toBe(
        400,
      );
    } finally {
      server.close();
      await rm(bare, { recursive: true, force: true });
    }
  });
});
