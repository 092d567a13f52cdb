import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cgroupEntryArgv, createSandboxCgroup, type SandboxCgroup, type SandboxLimits } from './cgroups.js';
import { type CgroupProbe, probeCgroups, SANDBOXES_DIR } from './cgroups-probe.js';

// Real cgroups of this host: they need root (or a delegated v2 subtree) and a writable hierarchy.
// CI runs as root on a host with cgroup v1, so there they run.
const probe: CgroupProbe =
  process.getuid?.() === 0
    ? await probeCgroups()
    : { available: false, reason: 'the tests do not run as root' };
const skipped = probe.available ? '' : ` (skipped: ${probe.reason})`;

const created: SandboxCgroup[] = [];
afterEach(async () => {
  for (const group of created.splice(0)) await group.remove();
});

async function group(limits: Partial<SandboxLimits> = {}) {
  if (!probe.available) throw new Error(probe.reason);
  const id = `test-${process.pid}-${randomBytes(4).toString('hex')}`;
  const made = await createSandboxCgroup(probe, id, { memoryMb: 256, pids: 64, cpus: 1, ...limits });
  created.push(made);
  return {
    id,
    group: made,
    dir: (controller: 'memory' | 'pids' | 'cpu') => path.join(probe.parents[controller], id),
  };
}

/** Runs argv inside the group; resolves when it has exited and its output is closed (redirect what is left running). */
function runIn(cgroup: SandboxCgroup, argv: string[]) {
  const [program, ...args] = cgroupEntryArgv(cgroup.procsFiles, argv);
  const child = spawn(program!, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>(
    (resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
}

const pidsOf = async (cgroup: SandboxCgroup) =>
  (await readFile(cgroup.procsFiles[0]!, 'utf8')).split('\n').filter(Boolean);

const gone = (dir: string) =>
  access(dir).then(
    () => false,
    () => true,
  );

describe.skipIf(!probe.available)(`a sandbox's cgroup on this host${skipped}`, () => {
  it('holds a process entered through cgroupEntryArgv, and its children', async () => {
    const { id, group: cgroup } = await group();
    // `; true` keeps the shell alive, so cat runs as its child rather than in its place.
    const { code, stdout } = await runIn(cgroup, ['sh', '-c', 'cat /proc/self/cgroup; true']);
    expect(code).toBe(0);
    for (const controller of ['memory', 'pids', 'cpu']) {
      const line = stdout.split('\n').find((entry) => {
        const [hierarchy, controllers] = entry.split(':');
        return probe.available && probe.version === 2
          ? hierarchy === '0'
          : controllers?.split(',').includes(controller);
      });
      expect(line, controller).toMatch(new RegExp(`/${SANDBOXES_DIR}/${id}$`));
    }
  });

  it('writes the memory, process and cpu limits', async () => {
    const { group: cgroup, dir } = await group({ memoryMb: 300, pids: 42, cpus: 1.5 });
    const read = (controller: 'memory' | 'pids' | 'cpu', file: string) =>
      readFile(path.join(dir(controller), file), 'utf8').then((text) => text.trim());
    expect(await read('pids', 'pids.max')).toBe('42');
    if (probe.available && probe.version === 2) {
      expect(await read('memory', 'memory.max')).toBe(String(300 * 1024 * 1024));
      expect(await read('cpu', 'cpu.max')).toBe('150000 100000');
    } else {
      expect(await read('memory', 'memory.limit_in_bytes')).toBe(String(300 * 1024 * 1024));
      expect(await read('cpu', 'cpu.cfs_quota_us')).toBe('150000');
      expect(await read('cpu', 'cpu.cfs_period_us')).toBe('100000');
    }
    expect(await cgroup.outcome()).toBeNull();
  });

  it('refuses forks past the process limit and names it; killAll ends what is left', async () => {
    const { group: cgroup, dir } = await group({ pids: 20 });
    const { stderr } = await runIn(cgroup, [
      'sh',
      '-c',
      'i=0; while [ "$i" -lt 100 ]; do sleep 1000 >/dev/null 2>&1 & i=$((i + 1)); done',
    ]);
    expect(stderr).toMatch(/fork/i);
    // The shell took one of the 20; its 19 sleeps are still running.
    expect(await pidsOf(cgroup)).toHaveLength(19);
    expect(await cgroup.outcome()).toBe('process limit 20 reached');
    await cgroup.killAll();
    expect(await pidsOf(cgroup)).toEqual([]);
    await cgroup.remove();
    expect(await gone(dir('pids'))).toBe(true);
    expect(await gone(dir('memory'))).toBe(true);
  });

  it('ends a fork loop that would sit at the process limit until its timeout', async () => {
    const { group: cgroup } = await group({ pids: 20 });
    // bash, unlike dash, retries a failed fork and goes on looping: without the watcher this never ends.
    const ran = runIn(cgroup, ['bash', '-c', 'while :; do sleep 1000 & done 2>/dev/null']);
    const reason = await new Promise<string>((resolve, reject) => {
      cgroup.watch((why, killed) => {
        killed.then(() => resolve(why), reject);
      }, 50);
    });
    expect(reason).toBe('process limit 20 reached');
    expect((await ran).signal).toBe('SIGKILL');
    expect(await pidsOf(cgroup)).toEqual([]);
  });

  it('kills a process that allocates past the memory limit and names the limit', async () => {
    const { group: cgroup } = await group({ memoryMb: 64 });
    // tail keeps the whole line (200 MB of zeros, no newline) in memory.
    const { code } = await runIn(cgroup, ['sh', '-c', 'head -c 200M /dev/zero | tail > /dev/null']);
    expect(code).toBe(128 + 9);
    expect(await cgroup.outcome()).toBe('memory limit 64 MB reached');
  });

  it('is removed after use even with processes left running, and removing twice is no error', async () => {
    const { group: cgroup, dir } = await group();
    await runIn(cgroup, ['sh', '-c', 'sleep 1000 >/dev/null 2>&1 & sleep 1000 >/dev/null 2>&1 & exit 0']);
    expect(await pidsOf(cgroup)).toHaveLength(2);
    await cgroup.remove();
    for (const controller of ['memory', 'pids', 'cpu'] as const)
      expect(await gone(dir(controller))).toBe(true);
    await cgroup.remove();
    expect(await cgroup.outcome()).toBeNull();
  });
});
