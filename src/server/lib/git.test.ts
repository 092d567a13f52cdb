import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GitHttpHost, startGitHttpHost } from '../testing/git-http-host.js';
import { GitError, git } from './git.js';

const run = promisify(execFile);

let root: string;
let operatorHome: string;
let open: GitHttpHost;
let locked: GitHttpHost;
let scratch: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'autocoder-git-root-'));
  scratch = await mkdtemp(path.join(tmpdir(), 'autocoder-git-clones-'));
  const work = path.join(scratch, 'work');
  await run('git', ['init', '--quiet', '--initial-branch=main', work]);
  await writeFile(path.join(work, 'a.txt'), 'a\n');
  await run('git', ['-c', 'user.name=T', '-c', 'user.email=t@e.x', 'add', '.'], { cwd: work });
  await run('git', ['-c', 'user.name=T', '-c', 'user.email=t@e.x', 'commit', '-qm', 'a'], { cwd: work });
  await run('git', ['clone', '--quiet', '--bare', work, path.join(root, 'repo.git')]);
  open = await startGitHttpHost({ root });
  locked = await startGitHttpHost({ root, requireAuth: true });
  // The operator's HOME: stored credentials for the host, and an extra header for every request.
  operatorHome = await mkdtemp(path.join(tmpdir(), 'autocoder-operator-home-'));
  await writeFile(
    path.join(operatorHome, '.gitconfig'),
    '[credential]\n\thelper = store\n[http]\n\textraHeader = X-Operator-Token: header-secret\n',
  );
  const hostPort = new URL(locked.url).host;
  await writeFile(
    path.join(operatorHome, '.git-credentials'),
    `http://operator:stored-secret@${hostPort}\n`,
    {
      mode: 0o600,
    },
  );
});

afterAll(async () => {
  await open.close();
  await locked.close();
  for (const dir of [root, operatorHome, scratch]) await rm(dir, { recursive: true, force: true });
});

const target = (name: string) => path.join(scratch, name);

describe('git with a user-supplied URL', () => {
  it("(a plain git with the operator's HOME does send its stored credentials and headers: what the server's must not)", async () => {
    locked.requests.length = 0;
    await expect(
      run('git', ['clone', '--quiet', `${locked.url}/repo.git`, target('plain')], {
        env: { PATH: process.env.PATH, HOME: operatorHome, GIT_TERMINAL_PROMPT: '0' },
      }),
    ).rejects.toThrow();
    expect(locked.requests.some((r) => r.headers.authorization?.startsWith('Basic b3BlcmF0b3I6'))).toBe(true);
    expect(locked.requests.some((r) => r.headers['x-operator-token'])).toBe(true);
  });

  it("a trusted git reads no global config either: neither the operator's credentials nor headers", async () => {
    locked.requests.length = 0;
    await expect(
      git(['clone', '--quiet', `${locked.url}/repo.git`, target('trusted')], { home: operatorHome }),
    ).rejects.toThrow(GitError);
    expect(locked.requests.length).toBeGreaterThan(0);
    for (const request of locked.requests) {
      // 'b3BlcmF0b3I6' is base64 of "operator:", the stored user.
      expect(request.headers.authorization ?? '').not.toContain('b3BlcmF0b3I6');
      expect(request.headers['x-operator-token']).toBeUndefined();
    }
  });

  it("sends none of the operator's credentials or extra headers, and fails with a clear error", async () => {
    locked.requests.length = 0;
    const error = await git(['clone', '--quiet', `${locked.url}/repo.git`, target('untrusted')], {
      home: operatorHome,
      untrusted: true,
    }).catch((e: unknown) => e as GitError);
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).message).toMatch(
      /git clone failed: .*(terminal prompts disabled|Authentication)/,
    );
    expect(locked.requests.length).toBeGreaterThan(0);
    for (const request of locked.requests) {
      expect(request.headers.authorization).toBeUndefined();
      expect(request.headers['x-operator-token']).toBeUndefined();
    }
  });

  it('still clones a public repository over smart HTTP', async () => {
    await git(['clone', '--quiet', `${open.url}/repo.git`, target('public')], { untrusted: true });
    const { stdout } = await git(['log', '--format=%s'], { cwd: target('public') });
    expect(stdout.toString()).toBe('a\n');
    expect(open.requests.some((r) => r.url.includes('git-upload-pack'))).toBe(true);
  });

  it('speaks only http(s) and ssh', async () => {
    const bare = path.join(root, 'repo.git');
    await expect(
      git(['clone', '--quiet', `file://${bare}`, target('file')], { untrusted: true }),
    ).rejects.toThrow(/transport 'file' not allowed/);
    await expect(
      git(['clone', '--quiet', 'git://127.0.0.1:9/repo.git', target('git')], { untrusted: true }),
    ).rejects.toThrow(/transport 'git' not allowed/);
  });
});

describe('git with input', () => {
  it('writes the input to stdin and closes it (cat-file --batch answers every line)', async () => {
    const bare = path.join(root, 'repo.git');
    const { stdout } = await git(['cat-file', '--batch'], { cwd: bare, input: 'HEAD:a.txt\nHEAD:nope\n' });
    expect(stdout.toString()).toMatch(/^[0-9a-f]{40} blob 2\na\n\nHEAD:nope missing\n$/);
  });
});
