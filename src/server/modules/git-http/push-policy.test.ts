import { execFile } from 'node:child_process';
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pipelineRuns, tasks } from '@/server/db/schema.js';
import { createTestApp, signedInClient, type TestApp } from '@/server/testing/test-app.js';
import { serveOnSocket } from '../events/testing/sse-client.js';
import { repositoryPath } from '../workspace/repository.js';
import { commitFiles } from '../workspace/test-repo.js';

const run = promisify(execFile);

const MAX_BLOB = 1024 * 1024;
const MAX_UNPACKED = 4 * 1024 * 1024;

/**
 * Issue 23, item 5: what a push may bring and which branches it may rewrite, enforced by our
 * pre-receive hook before anything is stored. Real git clients over real HTTP.
 */
describe('push policy over /git/<projectId>.git', () => {
  let t: TestApp;
  let server: { url: string; close(): Promise<void> };
  let owner: Awaited<ReturnType<typeof signedInClient>>['client'];
  let projectId: string;
  let repo: string;
  let work: string;
  let remote: string;

  beforeAll(async () => {
    t = await createTestApp({
      runtime: { gitPush: { maxBlobBytes: MAX_BLOB, maxUnpackedBytes: MAX_UNPACKED } },
    });
    const signedIn = await signedInClient(t.app);
    owner = signedIn.client;
    projectId = signedIn.projectId;
    repo = repositoryPath(t.deps.dataDir, projectId);
    await commitFiles(repo, { 'README.md': 'hello\n' }, 'Start');
    const token = await owner.post<{ token: string }>('/api/tokens', { name: 'pusher' });
    server = await serveOnSocket(t.app);
    work = await mkdtemp(path.join(tmpdir(), 'autocoder-push-policy-'));
    remote = `${server.url.replace('://', `://agent:${token.body.token}@`)}/git/${projectId}.git`;
  });
  afterAll(async () => {
    await server?.close();
    await t?.close();
    await rm(work, { recursive: true, force: true });
  });

  /** A git of its own: no user or system config, never a prompt. */
  const git = (args: string[], cwd = work) =>
    run('git', ['-c', 'user.name=Agent', '-c', 'user.email=agent@example.com', ...args], {
      cwd,
      env: { PATH: process.env.PATH, HOME: work, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' },
      maxBuffer: 16 * 1024 * 1024,
    });
  /** A push that is expected to fail: what git printed. */
  const refusedPush = async (args: string[], cwd: string) => {
    const outcome = await git(['push', ...args], cwd).then(
      () => null,
      (error: { stderr: string }) => error.stderr,
    );
    expect(outcome, 'the push should have been refused').not.toBeNull();
    return outcome as string;
  };
  const serverRef = async (ref: string) =>
    (
      await run('git', ['rev-parse', '--verify', '--quiet', ref], { cwd: repo }).catch(() => ({ stdout: '' }))
    ).stdout.trim();
  const hasObject = (oid: string) =>
    run('git', ['cat-file', '-e', oid], { cwd: repo }).then(
      () => true,
      () => false,
    );
  const exists = (file: string) =>
    access(file).then(
      () => true,
      () => false,
    );
  const clone = async (name: string) => {
    await git(['clone', '--quiet', remote, name]);
    return path.join(work, name);
  };
  const commit = async (dir: string, files: Record<string, string | Buffer>, message: string) => {
    for (const [file, content] of Object.entries(files)) await writeFile(path.join(dir, file), content);
    await git(['add', '-A'], dir);
    await git(['commit', '-qm', message], dir);
    return (await git(['rev-parse', 'HEAD'], dir)).stdout.trim();
  };
  const blobId = async (dir: string, file: string) =>
    (await git(['rev-parse', `HEAD:${file}`], dir)).stdout.trim();

  it('refuses a push with a blob over AUTOCODER_MAX_BLOB_BYTES before storing anything', async () => {
    const dir = await clone('big-blob');
    const before = await serverRef('refs/heads/main');
    // Zeros compress to almost nothing: the pack is a few KB, the file 2 MB.
    await commit(dir, { 'zeros.bin': Buffer.alloc(2 * MAX_BLOB) }, 'A big file');
    const blob = await blobId(dir, 'zeros.bin');
    const stderr = await refusedPush(['origin', 'main'], dir);
    expect(stderr).toContain(' ! [remote rejected] main -> main (pre-receive hook declined)');
    expect(stderr).toContain(
      `remote: error: object ${blob} is ${2 * MAX_BLOB} bytes, over the limit of ${MAX_BLOB} bytes per file (AUTOCODER_MAX_BLOB_BYTES); nothing was stored`,
    );
    expect(await hasObject(blob)).toBe(false);
    expect(await hasObject((await git(['rev-parse', 'HEAD'], dir)).stdout.trim())).toBe(false);
    expect(await serverRef('refs/heads/main')).toBe(before);
    expect(await exists(path.join(repo, 'zeros.bin'))).toBe(false);
  });

  it('refuses a push whose objects sum past AUTOCODER_MAX_PUSH_UNPACKED_BYTES, each under the blob cap', async () => {
    const dir = await clone('many-blobs');
    const before = await serverRef('refs/heads/main');
    const files: Record<string, Buffer> = {};
    for (let i = 1; i <= 5; i++) files[`part-${i}.bin`] = Buffer.alloc(MAX_BLOB - 1000, i);
    await commit(dir, files, 'Five parts');
    const blobs = await Promise.all(Object.keys(files).map((file) => blobId(dir, file)));
    const stderr = await refusedPush(['origin', 'HEAD:refs/heads/parts'], dir);
    expect(stderr).toContain(' ! [remote rejected] HEAD -> parts (pre-receive hook declined)');
    expect(stderr).toMatch(
      new RegExp(
        `remote: error: the pushed objects hold \\d+ bytes uncompressed, over the limit of ${MAX_UNPACKED} bytes per push`,
      ),
    );
    for (const blob of blobs) expect(await hasObject(blob)).toBe(false);
    expect(await serverRef('refs/heads/parts')).toBe('');
    expect(await serverRef('refs/heads/main')).toBe(before);
  });

  it('takes a fast-forward of the default branch and updates the checkout', async () => {
    const dir = await clone('forward');
    const pushed = await commit(dir, { 'NOTES.md': 'forward\n' }, 'Notes');
    await git(['push', '--quiet', 'origin', 'main'], dir);
    expect(await serverRef('refs/heads/main')).toBe(pushed);
    expect(await readFile(path.join(repo, 'NOTES.md'), 'utf8')).toBe('forward\n');
  });

  it('refuses a force-push and a deletion of the default branch (protected branch)', async () => {
    const dir = await clone('rewrite-main');
    const reviewed = await serverRef('refs/heads/main');
    await git(['commit', '--amend', '-qm', 'Rewritten history'], dir);
    const forced = await refusedPush(['--force', 'origin', 'main'], dir);
    expect(forced).toContain(' ! [remote rejected] main -> main (protected branch)');
    expect(forced).toContain('remote: error: refs/heads/main is protected: only a fast-forward is accepted');
    const deleted = await refusedPush(['origin', ':main'], dir);
    expect(deleted).toContain(' ! [remote rejected] main (protected branch)');
    expect(deleted).toContain('remote: error: refs/heads/main is protected: it cannot be deleted');
    expect(await serverRef('refs/heads/main')).toBe(reviewed);
  });

  it('protects a task branch while its run is active or its task in Review; Done, or any other branch, follows git', async () => {
    const dir = await clone('task-branch');
    const created = await owner.post<{ id: string }>('/api/tasks', { projectId, title: 'Reviewed work' });
    expect(created.status).toBe(201);
    const taskId = created.body.id;
    const branch = 'autocoder/reviewed-work-1a2b3c4d';
    const first = await commit(dir, { 'work.md': 'one\n' }, 'Work');
    await git(
      ['push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`, 'HEAD:refs/heads/agent/scratch'],
      dir,
    );
    const [runRow] = await t.deps.db
      .insert(pipelineRuns)
      .values({ taskId, status: 'running', provider: 'simulator', branch })
      .returning({ id: pipelineRuns.id });
    await git(['commit', '--amend', '-qm', 'Work, rewritten'], dir);

    // Running: a force-push and a deletion are refused.
    const whileRunning = await refusedPush(['--force', 'origin', `HEAD:refs/heads/${branch}`], dir);
    expect(whileRunning).toContain(` ! [remote rejected] HEAD -> ${branch} (protected branch)`);
    const deleted = await refusedPush(['origin', `:refs/heads/${branch}`], dir);
    expect(deleted).toContain(` ! [remote rejected] ${branch} (protected branch)`);

    // In Review (the run passed): still refused, and the reviewed commit stays the branch's.
    await t.deps.db
      .update(pipelineRuns)
      .set({ status: 'passed' })
      .where(eq(pipelineRuns.id, runRow?.id ?? ''));
    await t.deps.db.update(tasks).set({ status: 'review' }).where(eq(tasks.id, taskId));
    const inReview = await refusedPush(['--force', 'origin', `HEAD:refs/heads/${branch}`], dir);
    expect(inReview).toContain(` ! [remote rejected] HEAD -> ${branch} (protected branch)`);
    expect(await serverRef(`refs/heads/${branch}`)).toBe(first);

    // An ordinary branch is rewritten as git allows.
    await git(['push', '--quiet', '--force', 'origin', 'HEAD:refs/heads/agent/scratch'], dir);
    const rewritten = (await git(['rev-parse', 'HEAD'], dir)).stdout.trim();
    expect(await serverRef('refs/heads/agent/scratch')).toBe(rewritten);

    // Done: the task branch is an ordinary branch again.
    await t.deps.db.update(tasks).set({ status: 'done' }).where(eq(tasks.id, taskId));
    await git(['push', '--quiet', '--force', 'origin', `HEAD:refs/heads/${branch}`], dir);
    expect(await serverRef(`refs/heads/${branch}`)).toBe(rewritten);
  });

  it('runs our hook and no other, whatever the repository’s config or hooks directory says', async () => {
    const dir = await clone('planted');
    const planted = path.join(work, 'planted-ran');
    await writeFile(path.join(repo, '.git/hooks/post-receive'), `#!/bin/sh\ntouch '${planted}'\n`, {
      mode: 0o755,
    });
    await run('git', ['config', 'core.hooksPath', path.join(repo, '.git/hooks')], { cwd: repo });
    try {
      await git(['commit', '--amend', '-qm', 'Rewritten under a planted config'], dir);
      const stderr = await refusedPush(['--force', 'origin', 'main'], dir);
      expect(stderr).toContain(' ! [remote rejected] main -> main (protected branch)');
      await commit(dir, { 'more.md': 'more\n' }, 'More');
      await git(['push', '--quiet', 'origin', 'HEAD:refs/heads/agent/planted'], dir);
      expect(await exists(planted)).toBe(false);
    } finally {
      await run('git', ['config', '--unset', 'core.hooksPath'], { cwd: repo });
    }
  });

  it('names only the protected ref when one push also carries an ordinary one', async () => {
    const dir = await clone('mixed');
    await git(['commit', '--amend', '-qm', 'Rewritten again'], dir);
    const stderr = await refusedPush(['--force', 'origin', 'main', 'HEAD:refs/heads/agent/other'], dir);
    expect(stderr).toContain(' ! [remote rejected] main -> main (protected branch)');
    // A pre-receive hook refuses a push as a whole: the other ref is git's own refusal.
    expect(stderr).toContain(' ! [remote rejected] HEAD -> agent/other (pre-receive hook declined)');
    expect(await serverRef('refs/heads/agent/other')).toBe('');
  });
});
