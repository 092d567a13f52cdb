import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInClient } from '@/server/testing/test-app.js';
import { createMemoryLockStore } from '../coordination/memory-lock-store.js';
import { branchHead, fx, newAgent, useCoordinationApp } from '../coordination/testing/fixture.js';
import { serveOnSocket } from '../events/testing/sse-client.js';
import { MAX_PUSH_BYTES } from './git-backend.js';

const run = promisify(execFile);

/** The shared remote (issue 9): a real git clones, pulls and pushes over /git/<projectId>.git. */
describe('git smart HTTP at /git/<projectId>.git', () => {
  useCoordinationApp(createMemoryLockStore);
  let server: { url: string; close(): Promise<void> };
  let work: string;

  beforeAll(async () => {
    server = await serveOnSocket(fx.t.app);
    work = await mkdtemp(path.join(tmpdir(), 'autocoder-git-http-'));
  });
  afterAll(async () => {
    await server.close();
    await rm(work, { recursive: true, force: true });
  });

  /** A git of its own: no user or system config, never a prompt. */
  const git = (args: string[], cwd = work) =>
    run(
      'git',
      ['-c', 'credential.helper=', '-c', 'user.name=Agent', '-c', 'user.email=agent@example.com', ...args],
      {
        cwd,
        env: { PATH: process.env.PATH, HOME: work, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' },
      },
    );
  const remote = (token: string, projectId = fx.projectId) =>
    `${server.url.replace('://', `://agent:${token}@`)}/git/${projectId}.git`;

  it('clones, pulls and pushes with a token; a push moves the branch, the checkout and repo_head', async () => {
    const agent = await newAgent('git-agent');
    await git(['clone', '--quiet', remote(agent.token), 'clone']);
    const clone = path.join(work, 'clone');
    expect(await readFile(path.join(clone, 'src/db.ts'), 'utf8')).toBe('export const db = {};\n');

    // A pull sees a commit made in AutoCoder's repository meanwhile.
    await writeFile(path.join(fx.repo, 'NOTES.md'), 'from the server\n');
    await run('git', ['add', 'NOTES.md'], { cwd: fx.repo });
    await run(
      'git',
      ['-c', 'user.name=AutoCoder', '-c', 'user.email=a@localhost', 'commit', '-qm', 'Notes'],
      {
        cwd: fx.repo,
      },
    );
    await git(['pull', '--quiet', '--rebase'], clone);
    expect(await readFile(path.join(clone, 'NOTES.md'), 'utf8')).toBe('from the server\n');

    // A push to the default branch: the branch head, the checked-out tree and check_status follow.
    await writeFile(path.join(clone, 'src/db.ts'), 'export const db = { pool: 1 };\n');
    await git(['commit', '-qam', 'Pool the db'], clone);
    const pushed = (await git(['rev-parse', 'HEAD'], clone)).stdout.trim();
    expect((await agent.post(['src/db.ts'], 'WRITING', 'Pool the db.')).body.success).toBe(true);
    // Committed, not pushed: OPEN keeps the locks and says PUSH.
    const early = await agent.post(['src/db.ts'], 'OPEN', 'Pooled.', { new_repo_head: pushed });
    expect(early.body.orchestration.action).toBe('PUSH');
    await git(['push', '--quiet', 'origin', 'main'], clone);
    const released = await agent.post(['src/db.ts'], 'OPEN', 'Pooled.', { new_repo_head: pushed });
    expect(released.body).toMatchObject({ success: true, orchestration: { action: 'PROCEED' } });
    expect(await branchHead()).toBe(pushed);
    expect(await readFile(path.join(fx.repo, 'src/db.ts'), 'utf8')).toBe('export const db = { pool: 1 };\n');
    expect((await agent.check(['src/db.ts'])).body.repo_head).toBe(pushed);

    // A new branch pushes too.
    await git(['push', '--quiet', 'origin', 'HEAD:refs/heads/agent/work'], clone);
    const branches = (await run('git', ['branch', '--list', 'agent/work'], { cwd: fx.repo })).stdout;
    expect(branches).toContain('agent/work');
    // Announced just after the push's answer: wait for it, so that the next test counts from here.
    await expect
      .poll(async () =>
        (await fx.t.deps.events.replay(`project:${fx.projectId}`, 0)).some(
          (event) => event.type === 'head-moved' && event.data.branch === 'agent/work',
        ),
      )
      .toBe(true);
  });

  it('says on the project stream which branches a push moved (head-moved), and nothing for a fetch', async () => {
    const agent = await newAgent('git-announcer');
    const stream = `project:${fx.projectId}`;
    const headMoved = async () =>
      (await fx.t.deps.events.replay(stream, 0)).filter((event) => event.type === 'head-moved');
    const before = (await headMoved()).length;
    await git(['clone', '--quiet', remote(agent.token), 'announcer']);
    const clone = path.join(work, 'announcer');
    await git(['fetch', '--quiet'], clone);
    expect(await headMoved()).toHaveLength(before);

    await writeFile(path.join(clone, 'src/other.ts'), 'export const other = 2;\n');
    await git(['commit', '-qam', 'Two'], clone);
    const pushed = (await git(['rev-parse', 'HEAD'], clone)).stdout.trim();
    await git(['push', '--quiet', 'origin', 'main', 'HEAD:refs/heads/announced'], clone);
    // Announced once git has exited: just after the push's answer.
    await expect
      .poll(async () => (await headMoved()).slice(before).map((event) => event.data))
      .toEqual(
        expect.arrayContaining([
          expect.objectContaining({ branch: 'main', head: pushed }),
          expect.objectContaining({ branch: 'announced', head: pushed }),
        ]),
      );
    expect((await headMoved()).length - before).toBe(2);
  });

  it('says nothing for a push that moves no branch (a tag)', async () => {
    const agent = await newAgent('git-tagger');
    const stream = `project:${fx.projectId}`;
    const headMoved = async () =>
      (await fx.t.deps.events.replay(stream, 0)).filter((event) => event.type === 'head-moved');
    await git(['clone', '--quiet', remote(agent.token), 'tagger']);
    const clone = path.join(work, 'tagger');
    const before = (await headMoved()).length;
    await git(['tag', 'v-tagged'], clone);
    await git(['push', '--quiet', 'origin', 'refs/tags/v-tagged'], clone);
    expect((await run('git', ['tag', '--list', 'v-tagged'], { cwd: fx.repo })).stdout).toContain('v-tagged');
    // A branch pushed after it: once its event is there, an event of the tag's push would be too.
    await git(['push', '--quiet', 'origin', 'HEAD:refs/heads/after-tag'], clone);
    await expect
      .poll(async () => (await headMoved()).slice(before).map((event) => event.data.branch))
      .toContain('after-tag');
    expect((await headMoved()).slice(before).map((event) => event.data.branch)).toEqual(['after-tag']);
  });

  it('streams a push of several MB (chunked) and a clone of it back', async () => {
    const agent = await newAgent('git-bulk');
    await git(['clone', '--quiet', remote(agent.token), 'bulk']);
    const clone = path.join(work, 'bulk');
    // Random bytes do not compress: the pack is larger than git's 1 MB post buffer, so it is chunked.
    await writeFile(path.join(clone, 'blob.bin'), randomBytes(6 * 1024 * 1024));
    await git(['add', 'blob.bin'], clone);
    await git(['commit', '-qm', 'A big blob'], clone);
    await git(['push', '--quiet', 'origin', 'HEAD:refs/heads/bulk'], clone);
    await git(['clone', '--quiet', '--branch', 'bulk', remote(agent.token), 'bulk-again']);
    const again = await readFile(path.join(work, 'bulk-again', 'blob.bin'));
    expect(again.equals(await readFile(path.join(clone, 'blob.bin')))).toBe(true);
  });

  it('accepts the token as a bearer header too', async () => {
    const agent = await newAgent('git-bearer');
    const url = `${server.url}/git/${fx.projectId}.git`;
    await git(['-c', `http.extraHeader=Authorization: Bearer ${agent.token}`, 'ls-remote', url, 'main']);
  });

  it('answers 401 with a Basic challenge without a token or with a wrong one', async () => {
    const bare = await fetch(`${server.url}/git/${fx.projectId}.git/info/refs?service=git-upload-pack`);
    expect(bare.status).toBe(401);
    expect(bare.headers.get('www-authenticate')).toMatch(/^Basic/);
    const wrong = await fetch(`${server.url}/git/${fx.projectId}.git/info/refs?service=git-upload-pack`, {
      headers: { authorization: `Basic ${Buffer.from('agent:acat_wrong').toString('base64')}` },
    });
    expect(wrong.status).toBe(401);
    await expect(git(['ls-remote', remote('acat_wrong')])).rejects.toThrow(/401|Authentication failed/);
  });

  it('answers 404 for another user’s project and for an unknown one', async () => {
    const agent = await newAgent('git-stranger');
    const stranger = await signedInClient(fx.t.app);
    const auth = { authorization: `Basic ${Buffer.from(`x:${agent.token}`).toString('base64')}` };
    for (const id of [stranger.projectId, '00000000-0000-4000-8000-000000000000']) {
      const res = await fetch(`${server.url}/git/${id}.git/info/refs?service=git-upload-pack`, {
        headers: auth,
      });
      expect(res.status, id).toBe(404);
    }
    await expect(git(['clone', '--quiet', remote(agent.token, stranger.projectId), 'nope'])).rejects.toThrow(
      /not found|404/i,
    );
    const other = await fetch(`${server.url}/git/${fx.projectId}.git/config`, { headers: auth });
    expect(other.status).toBe(404);
  });

  it('refuses a push whose declared body is over the cap with 413, before reading it', async () => {
    const agent = await newAgent('git-big');
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        `${server.url}/git/${fx.projectId}.git/git-receive-pack`,
        {
          method: 'POST',
          headers: {
            authorization: `Basic ${Buffer.from(`x:${agent.token}`).toString('base64')}`,
            'content-type': 'application/x-git-receive-pack-request',
            'content-length': String(MAX_PUSH_BYTES + 1),
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
          req.destroy();
        },
      );
      req.on('error', reject);
      req.write('0000');
    });
    expect(status).toBe(413);
  });
});
