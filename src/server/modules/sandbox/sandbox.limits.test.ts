import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AvailableCgroups, probeCgroups } from './cgroups-probe.js';
import { createSandbox, type Sandbox } from './sandbox.js';
import { findBwrap } from './sandbox-mode.js';
import { type SandboxFixture, sandboxFixture } from './sandbox-testing.js';

const PATH = process.env.PATH ?? '/usr/bin:/bin';
const bwrapPath = findBwrap(PATH);
const probe = await probeCgroups();
if (!probe.available) console.warn(`SKIPPED: the sandbox limit tests need cgroups (${probe.reason})`);
const cgroups = probe.available ? (probe as AvailableCgroups) : null;

describe.skipIf(!bwrapPath || !cgroups)('a sandbox that reaches a limit', () => {
  let fx: SandboxFixture;
  let sandbox: Sandbox;

  beforeAll(async () => {
    fx = await sandboxFixture();
    sandbox = createSandbox({
      mode: 'bwrap',
      bwrapPath,
      path: PATH,
      hidden: [fx.dataDir],
      limits: { cgroups: cgroups as AvailableCgroups, limits: { memoryMb: 64, pids: 32, cpus: 1 } },
    });
  });
  afterAll(async () => {
    await sandbox?.close();
    await rm(fx.root, { recursive: true, force: true });
  });

  const sh = (script: string) =>
    sandbox.run({ command: ['sh', '-c', script], cwd: fx.worktree, timeoutMs: 120_000 });

  it('runs an ordinary command within the limits', async () => {
    const result = await sh('echo fine');
    expect(result.exitCode).toBe(0);
    expect(result.limit).toBeUndefined();
  });

  it('is ended at the memory limit, and says so in its output', async () => {
    const result = await sh('head -c 300M /dev/zero | tail > /dev/null; echo "still here: $?"');
    expect(result.timedOut).toBe(false);
    expect(result.limit).toBe('memory limit 64 MB reached');
    expect(result.tail).toContain('memory limit 64 MB reached');
  });

  it('is ended at the process limit instead of sitting there until its timeout', async () => {
    const result = await sh('while :; do sleep 1000 & done');
    expect(result.timedOut).toBe(false);
    expect(result.limit).toBe('process limit 32 reached');
    expect(result.tail).toContain('process limit 32 reached');
  });
});

describe('a step that grows its worktree past the cap', () => {
  it('fails with the reason, whatever its exit code', async () => {
    const fx = await sandboxFixture();
    const sandbox = createSandbox({
      mode: bwrapPath ? 'bwrap' : 'host',
      bwrapPath,
      path: PATH,
      hidden: [fx.dataDir],
      maxGrowthBytes: 1024 * 1024,
    });
    try {
      const small = await sandbox.run({
        command: ['sh', '-c', 'head -c 10000 /dev/zero > small.bin'],
        cwd: fx.worktree,
        timeoutMs: 60_000,
      });
      expect(small.limit).toBeUndefined();
      const big = await sandbox.run({
        command: ['sh', '-c', 'head -c 5000000 /dev/zero > big.bin'],
        cwd: fx.worktree,
        timeoutMs: 60_000,
      });
      expect(big.limit).toBe('the worktree grew by more than 1 MB in one step');
      expect(big.tail).toContain('the worktree grew by more than 1 MB in one step');
    } finally {
      await sandbox.close();
      await rm(fx.root, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!bwrapPath)("a sandbox's private /tmp", () => {
  it('holds no more than its size', async () => {
    const fx = await sandboxFixture();
    const sandbox = createSandbox({
      mode: 'bwrap',
      bwrapPath,
      path: PATH,
      hidden: [fx.dataDir],
      tmpBytes: 1024 * 1024,
    });
    try {
      const result = await sandbox.run({
        command: [
          'sh',
          '-c',
          'head -c 500000 /dev/zero > /tmp/small && head -c 3000000 /dev/zero > /tmp/big',
        ],
        cwd: fx.worktree,
        timeoutMs: 60_000,
      });
      expect(result.exitCode).not.toBe(0);
      expect(result.tail).toMatch(/No space left on device/);
    } finally {
      await sandbox.close();
      await rm(fx.root, { recursive: true, force: true });
    }
  });
});
