import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from './sandbox.js';
import { findBwrap } from './sandbox-mode.js';
import { pidsRunning, type SandboxFixture, sandboxFixture } from './sandbox-testing.js';

const PATH = process.env.PATH ?? '/usr/bin:/bin';
const run = promisify(execFile);
const gitIn = (cwd: string, ...args: string[]) =>
  run('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', ...args], { cwd });
const bwrapPath = findBwrap(PATH);
if (!bwrapPath) {
  console.warn(
    'SKIPPED: the bubblewrap sandbox tests need `bwrap` (Debian: apt-get install bubblewrap; .ci/run installs it)',
  );
}

describe.skipIf(!bwrapPath)('the bubblewrap sandbox', () => {
  let fx: SandboxFixture;
  let sandbox: Sandbox;
  let fakeHome: string;

  beforeAll(async () => {
    fx = await sandboxFixture();
    fakeHome = path.join(fx.root, 'home');
    await mkdir(path.join(fakeHome, '.ssh'), { recursive: true });
    await writeFile(path.join(fakeHome, '.ssh', 'id_ed25519'), 'PRIVATE KEY\n');
    await writeFile(path.join(fakeHome, '.npmrc'), '//registry.example/:_authToken=npm-secret\n');
    sandbox = createSandbox({ mode: 'bwrap', bwrapPath, path: PATH, hidden: [fx.dataDir], home: fakeHome });
  });
  afterAll(async () => {
    await sandbox?.close();
    await rm(fx.root, { recursive: true, force: true });
  });

  const sh = (script: string, extra: { timeoutMs?: number; signal?: AbortSignal } = {}) =>
    sandbox.run({
      command: ['sh', '-c', script],
      cwd: fx.worktree,
      timeoutMs: extra.timeoutMs ?? 20_000,
      ...extra,
    });

  it('sees the data dir when nothing hides it (the fixture is readable: the tests below can fail)', async () => {
    const open = createSandbox({ mode: 'bwrap', bwrapPath, path: PATH, hidden: [] });
    const result = await open.run({
      command: ['cat', fx.otherRepoFile, fx.databaseFile],
      cwd: fx.worktree,
      timeoutMs: 20_000,
    });
    expect(result.exitCode).toBe(0);
    expect(result.tail).toContain('other project');
  });

  it("cannot read another project's repository nor the database files", async () => {
    const repo = await sh(`cat '${fx.otherRepoFile}'`);
    expect(repo.exitCode).not.toBe(0);
    expect(repo.tail).not.toContain('other project');
    const db = await sh(`cat '${fx.databaseFile}'`);
    expect(db.exitCode).not.toBe(0);
    // The data dir shows the worktree and nothing else.
    const listing = await sh(`ls -A '${fx.dataDir}' '${path.join(fx.dataDir, 'worktrees')}'`);
    expect(listing.tail).not.toMatch(/repos|pglite/);
    expect(listing.tail).toContain('run-1');
  });

  it("cannot read the operator's credential files", async () => {
    const result = await sh(`cat '${fakeHome}/.ssh/id_ed25519' '${fakeHome}/.npmrc'`);
    expect(result.exitCode).not.toBe(0);
    expect(result.tail).not.toMatch(/PRIVATE KEY|npm-secret/);
  });

  it('writes only to the worktree and its private /tmp', async () => {
    const outside = path.join(fx.root, 'outside.txt');
    const result = await sh(
      [
        'echo built > out.txt',
        'echo scratch > /tmp/scratch.txt && cat /tmp/scratch.txt',
        `echo x > '${outside}' || echo "outside refused"`,
        `echo x > '${fx.dataDir}/planted.txt'; echo x > /usr/planted.txt || echo "usr refused"`,
      ].join('\n'),
    );
    expect(result.exitCode).toBe(0);
    expect(result.tail).toContain('scratch');
    expect(result.tail).toContain('outside refused');
    expect(result.tail).toContain('usr refused');
    expect(await readFile(path.join(fx.worktree, 'out.txt'), 'utf8')).toBe('built\n');
    expect(existsSync(outside)).toBe(false);
    expect(existsSync(path.join(fx.dataDir, 'planted.txt'))).toBe(false);
    expect(existsSync('/usr/planted.txt')).toBe(false);
  });

  it("does not see the server's secrets in its environment nor in /proc", async () => {
    const saved = { ...process.env };
    process.env.ANTHROPIC_API_KEY = 'sk-ant-sandbox-test-key-000';
    process.env.DATABASE_URL = 'postgres://secret-user:secret-pw@127.0.0.1:5432/db';
    process.env.AUTOCODER_METRICS_TOKEN = 'metrics-token-secret-0000';
    try {
      const result = await sh('env; cat /proc/*/environ 2>/dev/null | tr "\\0" "\\n"');
      expect(result.exitCode).toBe(0);
      expect(result.tail).toContain('CI=1');
      expect(result.tail).toContain('HOME=/tmp');
      expect(result.tail).not.toMatch(/sk-ant-sandbox|secret-pw|DATABASE_URL|AUTOCODER_|metrics-token/);
    } finally {
      process.env = saved;
    }
  });

  it('runs in a PID namespace of its own: no host process is visible', async () => {
    const result = await sh('ls /proc | grep -c "^[0-9]"');
    expect(Number(result.tail.trim())).toBeLessThan(10);
  });

  it('is killed with its children on timeout', async () => {
    const token = `${900_000 + Math.floor(Math.random() * 99_999)}`;
    const result = await sh(`sleep ${token} & echo started; sleep ${Number(token) + 1}`, {
      timeoutMs: 1_000,
    });
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(result.tail).toContain('started');
    expect(await pidsRunning(`sleep ${token}`)).toEqual([]);
    expect(await pidsRunning(`sleep ${Number(token) + 1}`)).toEqual([]);
  });

  it('is killed with its children on abort', async () => {
    const token = `${800_000 + Math.floor(Math.random() * 99_999)}`;
    const controller = new AbortController();
    const running = sandbox.run({
      command: ['sh', '-c', `sleep ${token} & echo started; wait`],
      cwd: fx.worktree,
      timeoutMs: 60_000,
      signal: controller.signal,
      onOutput: (_stream, chunk) => {
        if (chunk.includes('started')) controller.abort();
      },
    });
    const result = await running;
    expect(result.aborted).toBe(true);
    expect(result.timedOut).toBe(false);
    expect(await pidsRunning(`sleep ${token}`)).toEqual([]);
  });

  it('gives the command SIGTERM before anything is killed, inside the sandbox', async () => {
    const proc = await sandbox.spawn({
      command: ['sh', '-c', 'trap "echo got-term; exit 0" TERM; echo ready; while :; do sleep 0.05; done'],
      cwd: fx.worktree,
    });
    let out = '';
    await new Promise<void>((resolve) => {
      proc.child.stdout?.on('data', (chunk: Buffer) => {
        out += String(chunk);
        if (out.includes('ready')) resolve();
      });
    });
    await proc.stop(10_000);
    expect(out).toContain('got-term');
    expect((await proc.exited).exitCode).toBe(0);
  });

  it('leaves nothing running when stopped the moment it was spawned', async () => {
    for (let i = 0; i < 10; i++) {
      const token = `${600_000 + Math.floor(Math.random() * 99_999)}`;
      const proc = await sandbox.spawn({ command: ['sleep', token], cwd: fx.worktree });
      await proc.stop(200);
      expect(await pidsRunning(`sleep ${token}`)).toEqual([]);
    }
  });

  it('leaves no background process behind when the command ends on its own', async () => {
    const token = `${700_000 + Math.floor(Math.random() * 99_999)}`;
    const result = await sh(`sleep ${token} & exit 3`);
    expect(result.exitCode).toBe(3);
    expect(await pidsRunning(`sleep ${token}`)).toEqual([]);
  });

  describe('in a git worktree of the project', () => {
    let repo: string;
    let worktree: string;
    beforeAll(async () => {
      repo = path.join(fx.dataDir, 'repos', 'this-project');
      worktree = path.join(fx.dataDir, 'worktrees', 'run-git');
      await mkdir(repo, { recursive: true });
      await gitIn(repo, 'init', '--quiet', '--initial-branch=main');
      await gitIn(repo, 'commit', '--quiet', '--allow-empty', '-m', 'the first commit');
      await gitIn(repo, 'worktree', 'add', '--quiet', '-b', 'autocoder/task', worktree);
    });

    const inWorktree = (script: string, readOnlyPaths: string[] = []) =>
      sandbox.run({ command: ['sh', '-c', script], cwd: worktree, timeoutMs: 20_000, readOnlyPaths });

    it("runs git when given the project's git directory, read-only", async () => {
      const hidden = await inWorktree('git log --oneline');
      expect(hidden.exitCode).not.toBe(0);
      const shown = await inWorktree('git log --oneline && git commit --allow-empty -qm planted', [
        path.join(repo, '.git'),
      ]);
      expect(shown.tail).toContain('the first commit');
      expect(shown.exitCode).not.toBe(0);
      expect((await gitIn(repo, 'log', '--oneline', 'autocoder/task')).stdout).not.toContain('planted');
    });

    it("cannot rewrite, move or remove the worktree's .git file (git on the host reads it next)", async () => {
      const before = await readFile(path.join(worktree, '.git'), 'utf8');
      const result = await inWorktree(
        [
          'mkdir -p evil && printf "[core]\\n\\tfsmonitor = touch /tmp/owned\\n" > evil/config',
          'echo "gitdir: evil" > .git || echo "rewrite refused"',
          'mv .git moved.git || echo "move refused"',
          'rm -f .git || echo "remove refused"',
        ].join('\n'),
      );
      expect(result.tail).toContain('rewrite refused');
      expect(result.tail).toContain('move refused');
      expect(result.tail).toContain('remove refused');
      expect(await readFile(path.join(worktree, '.git'), 'utf8')).toBe(before);
    });
  });
});
