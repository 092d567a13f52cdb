import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess } from './testing/server-process.js';

const run = promisify(execFile);

let dataDir: string;
let bare: string;
let slowGit: Server;
let slowGitUrl: string;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'autocoder-main-'));
  // A repository served over git's dumb HTTP protocol, slowly: a clone takes over a second.
  const work = await mkdtemp(path.join(tmpdir(), 'autocoder-slow-src-'));
  await run('git', ['init', '--quiet', '--initial-branch=main', work]);
  await writeFile(path.join(work, 'a.txt'), 'a\n');
  await run('git', ['-c', 'user.name=T', '-c', 'user.email=t@e.x', 'add', '.'], { cwd: work });
  await run('git', ['-c', 'user.name=T', '-c', 'user.email=t@e.x', 'commit', '-qm', 'a'], { cwd: work });
  bare = `${work}.git`;
  await run('git', ['clone', '--quiet', '--bare', work, bare]);
  await run('git', ['update-server-info'], { cwd: bare });
  await rm(work, { recursive: true, force: true });
  const { readFile } = await import('node:fs/promises');
  slowGit = createServer((req, res) => {
    setTimeout(async () => {
      try {
        res.writeHead(200).end(await readFile(path.join(bare, new URL(req.url ?? '/', 'http://x').pathname)));
      } catch {
        res.writeHead(404).end();
      }
    }, 150);
  });
  await new Promise<void>((resolve) => slowGit.listen(0, '127.0.0.1', resolve));
  slowGitUrl = `http://127.0.0.1:${(slowGit.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  slowGit.close();
  await rm(dataDir, { recursive: true, force: true });
  await rm(bare, { recursive: true, force: true });
});

async function call(base: string, method: string, url: string, cookie: string, body?: unknown) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { origin: base, cookie, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : null,
  });
  return {
    status: res.status,
    setCookie: res.headers.get('set-cookie'),
    body: (await res.json().catch(() => null)) as never,
  };
}

describe('the server process', () => {
  it('finishes in-flight requests on SIGTERM, exits 0, and keeps everything across a restart', async () => {
    const first = await startServerProcess({ AUTOCODER_DATA_DIR: dataDir });
    const health = await fetch(`${first.url}/api/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({
      status: 'ok',
      database: 'pglite',
      version: expect.any(String),
    });

    const reg = await call(first.url, 'POST', '/api/auth/register', '', {
      email: 'ops@example.com',
      password: 'password-1',
    });
    expect(reg.status).toBe(201);
    const cookie = (reg.setCookie ?? '').split(';')[0] ?? '';
    const projects = await call(first.url, 'GET', '/api/projects', cookie);
    const projectId = (projects.body as { projects: { id: string }[] }).projects[0]?.id;
    const task = await call(first.url, 'POST', '/api/tasks', cookie, {
      projectId,
      title: 'Survives restarts',
    });
    expect(task.status).toBe(201);

    // A clone that is still running when the signal arrives must complete.
    const inFlight = call(first.url, 'POST', '/api/projects', cookie, {
      name: 'Slow clone',
      repoUrl: slowGitUrl,
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    first.child.kill('SIGTERM');
    const slow = await inFlight;
    expect(slow.status).toBe(201);
    expect(await first.exited).toBe(0);
    expect(first.lines.some((line) => line.includes('"msg":"stopped"'))).toBe(true);

    const second = await startServerProcess({ AUTOCODER_DATA_DIR: dataDir });
    try {
      const login = await call(second.url, 'POST', '/api/auth/login', '', {
        email: 'ops@example.com',
        password: 'password-1',
      });
      expect(login.status).toBe(200);
      const cookie2 = (login.setCookie ?? '').split(';')[0] ?? '';
      // The old session survived the restart too.
      expect((await call(second.url, 'GET', '/api/auth/me', cookie)).body).toMatchObject({
        user: { email: 'ops@example.com' },
      });
      const names = (await call(second.url, 'GET', '/api/projects', cookie2)).body as {
        projects: { name: string }[];
      };
      expect(names.projects.map((p) => p.name)).toEqual(['My Project', 'Slow clone']);
      const tasks = (await call(second.url, 'GET', `/api/tasks?projectId=${projectId}`, cookie2)).body as {
        tasks: { title: string }[];
      };
      expect(tasks.tasks.map((t) => t.title)).toEqual(['Survives restarts']);
    } finally {
      expect(await second.stop('SIGINT')).toBe(0);
    }
  }, 180_000);

  it('refuses to start with a clear message when the configuration is invalid', async () => {
    await expect(startServerProcess({ AUTOCODER_DATA_DIR: dataDir, PORT: 'eighty' }, 15_000)).rejects.toThrow(
      /Invalid configuration:[\s\S]*PORT/,
    );
  });
});
