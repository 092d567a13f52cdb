import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '@/server/lib/errors.js';
import { TAIL_BYTES } from './output-tail.js';
import { createSandbox, MAX_OUTPUT_CHUNK, type Sandbox } from './sandbox.js';
import { findBwrap } from './sandbox-mode.js';
import { pidsRunning, type SandboxFixture, sandboxFixture } from './sandbox-testing.js';

const PATH = process.env.PATH ?? '/usr/bin:/bin';

let fx: SandboxFixture;
beforeAll(async () => {
  fx = await sandboxFixture();
});
afterAll(async () => {
  await rm(fx.root, { recursive: true, force: true });
});

describe('AUTOCODER_SANDBOX=off', () => {
  it('refuses to run anything with SANDBOX_DISABLED (400)', async () => {
    const sandbox = createSandbox({ mode: 'off', bwrapPath: null, path: PATH, hidden: [] });
    const marker = path.join(fx.worktree, 'ran-while-off');
    const attempt = sandbox.run({ command: ['touch', marker], cwd: fx.worktree, timeoutMs: 5_000 });
    await expect(attempt).rejects.toBeInstanceOf(AppError);
    await expect(attempt).rejects.toMatchObject({ code: 'SANDBOX_DISABLED', status: 400 });
    await expect(sandbox.spawn({ command: ['true'], cwd: fx.worktree })).rejects.toMatchObject({
      code: 'SANDBOX_DISABLED',
    });
    expect(existsSync(marker)).toBe(false);
  });
});

describe('AUTOCODER_SANDBOX=host', () => {
  let sandbox: Sandbox;
  beforeAll(() => {
    sandbox = createSandbox({ mode: 'host', bwrapPath: null, path: PATH, hidden: [fx.dataDir] });
  });
  afterAll(() => sandbox.close());

  it('runs the command in the worktree with a private home and reports its exit code', async () => {
    const result = await sandbox.run({
      command: ['sh', '-c', 'pwd; echo "home=$HOME"; echo made > made.txt; exit 4'],
      cwd: fx.worktree,
      timeoutMs: 10_000,
    });
    expect(result).toMatchObject({ exitCode: 4, timedOut: false, aborted: false });
    expect(result.tail).toContain(fx.worktree);
    expect(await readFile(path.join(fx.worktree, 'made.txt'), 'utf8')).toBe('made\n');
    const home = /home=(.*)/.exec(result.tail)?.[1] ?? '';
    expect(path.basename(home)).toMatch(/^autocoder-sandbox-/);
    // The private home is removed once the process has ended.
    expect(existsSync(home)).toBe(false);
  });

  it("does not pass the server's secrets on", async () => {
    const saved = { ...process.env };
    process.env.OPENAI_API_KEY = 'sk-openai-sandbox-test';
    process.env.REDIS_URL = 'redis://:redis-secret@127.0.0.1:6379';
    try {
      const result = await sandbox.run({ command: ['env'], cwd: fx.worktree, timeoutMs: 10_000 });
      expect(result.tail).toContain('CI=1');
      expect(result.tail).not.toMatch(/sk-openai|redis-secret|OPENAI|REDIS_URL/);
    } finally {
      process.env = saved;
    }
  });

  it('refuses a caller passing a secret in', async () => {
    await expect(
      sandbox.run({
        command: ['true'],
        cwd: fx.worktree,
        timeoutMs: 5_000,
        env: { DATABASE_URL: 'postgres://x' },
      }),
    ).rejects.toThrow(/DATABASE_URL may not be passed/);
  });

  it('kills the whole process group on timeout', async () => {
    const token = `${600_000 + Math.floor(Math.random() * 99_999)}`;
    const result = await sandbox.run({
      command: ['sh', '-c', `sleep ${token} & echo started; sleep ${Number(token) + 1}`],
      cwd: fx.worktree,
      timeoutMs: 800,
    });
    expect(result.timedOut).toBe(true);
    expect(result.tail).toContain('started');
    expect(await pidsRunning(`sleep ${token}`)).toEqual([]);
    expect(await pidsRunning(`sleep ${Number(token) + 1}`)).toEqual([]);
  });

  it('kills what the command left running in the background once it ends', async () => {
    const token = `${500_000 + Math.floor(Math.random() * 99_999)}`;
    const result = await sandbox.run({
      command: ['sh', '-c', `sleep ${token} & echo done`],
      cwd: fx.worktree,
      timeoutMs: 10_000,
    });
    expect(result.exitCode).toBe(0);
    expect(await pidsRunning(`sleep ${token}`)).toEqual([]);
  });

  it('gives SIGTERM a grace before SIGKILL', async () => {
    const result = await sandbox.run({
      command: ['sh', '-c', 'trap "echo cleaning up; exit 9" TERM; echo ready; while :; do sleep 0.05; done'],
      cwd: fx.worktree,
      timeoutMs: 500,
    });
    expect(result.timedOut).toBe(true);
    expect(result.tail).toContain('cleaning up');
  });

  it('keeps the last 4 KB as the tail and streams all output in bounded chunks', async () => {
    const chunks: { stream: string; chunk: string }[] = [];
    const result = await sandbox.run({
      command: ['sh', '-c', 'seq 1 40000; echo to-stderr >&2'],
      cwd: fx.worktree,
      timeoutMs: 10_000,
      onOutput: (stream, chunk) => chunks.push({ stream, chunk }),
    });
    const expected = `${Array.from({ length: 40_000 }, (_, i) => i + 1).join('\n')}\n`;
    const stdout = chunks
      .filter((c) => c.stream === 'stdout')
      .map((c) => c.chunk)
      .join('');
    expect(stdout).toBe(expected);
    expect(chunks.filter((c) => c.stream === 'stderr').map((c) => c.chunk)).toEqual(['to-stderr\n']);
    expect(Math.max(...chunks.map((c) => c.chunk.length))).toBeLessThanOrEqual(MAX_OUTPUT_CHUNK);
    expect(Buffer.byteLength(result.tail)).toBe(TAIL_BYTES);
    expect(result.tail).toBe(`${expected}to-stderr\n`.slice(-TAIL_BYTES));
  });

  it('reports a program that does not exist in the tail', async () => {
    const result = await sandbox.run({
      command: ['no-such-program-xyz'],
      cwd: fx.worktree,
      timeoutMs: 5_000,
    });
    expect(result.exitCode).toBeNull();
    expect(result.tail).toContain('could not start no-such-program-xyz');
  });

  it('stops every running process on close (server shutdown)', async () => {
    const token = `${400_000 + Math.floor(Math.random() * 99_999)}`;
    const local = createSandbox({ mode: 'host', bwrapPath: null, path: PATH, hidden: [] });
    const proc = await local.spawn({ command: ['sh', '-c', `sleep ${token}`], cwd: fx.worktree });
    await local.close();
    expect((await proc.exited).signal).toBe('SIGTERM');
    expect(await pidsRunning(`sleep ${token}`)).toEqual([]);
  });
});

describe('findBwrap', () => {
  it('finds bwrap on PATH, and nothing on a PATH without it', () => {
    expect(findBwrap('/nonexistent-dir')).toBeNull();
    const found = findBwrap(PATH);
    if (found) expect(path.basename(found)).toBe('bwrap');
  });
});
