import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cgroupEntryArgv, createSandboxCgroup, eventCount } from './cgroups.js';
import type { AvailableCgroups } from './cgroups-probe.js';

// Plain directories laid out like cgroupfs: these check which files are written and read (this host
// has no cgroup v2 controllers, so v2 is only checked so); cgroups.test.ts runs the real thing on v1.
let tmp: string;
beforeEach(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'cgroups-files-'));
});
afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

function run(argv: string[], extraFd = false) {
  const [program, ...args] = argv;
  const child = spawn(program!, args, {
    stdio: ['ignore', 'pipe', 'pipe', ...(extraFd ? ['pipe' as const] : [])],
  });
  let output = '';
  for (const stream of [child.stdout, child.stderr, child.stdio[3]]) {
    stream?.on('data', (chunk) => {
      output += chunk;
    });
  }
  return new Promise<{ code: number | null; output: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, output })),
  );
}

describe('cgroup v2 files of a sandbox (plain directories)', () => {
  it('writes memory.max, pids.max and cpu.max, and reads the reason from the events files', async () => {
    const parent = path.join(tmp, 'autocoder');
    await mkdir(parent);
    const cgroups: AvailableCgroups = {
      available: true,
      version: 2,
      parents: { memory: parent, pids: parent, cpu: parent },
    };
    const group = await createSandboxCgroup(cgroups, 'run-1', { memoryMb: 2048, pids: 512, cpus: 2 });
    const dir = path.join(parent, 'run-1');
    expect(group.procsFiles).toEqual([path.join(dir, 'cgroup.procs')]);
    expect(await readFile(path.join(dir, 'memory.max'), 'utf8')).toBe(String(2048 * 1024 * 1024));
    expect(await readFile(path.join(dir, 'pids.max'), 'utf8')).toBe('512');
    expect(await readFile(path.join(dir, 'cpu.max'), 'utf8')).toBe('200000 100000');

    expect(await group.outcome()).toBeNull();
    await writeFile(path.join(dir, 'pids.events'), 'max 3\n');
    expect(await group.outcome()).toBe('process limit 512 reached');
    await writeFile(
      path.join(dir, 'memory.events'),
      'low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\noom_group_kill 1\n',
    );
    expect(await group.outcome()).toBe('memory limit 2048 MB reached');

    // With cgroup.kill present, killAll writes it; an empty cgroup.procs means every process is gone.
    await writeFile(path.join(dir, 'cgroup.kill'), '');
    await writeFile(path.join(dir, 'cgroup.procs'), '');
    await group.killAll();
    expect(await readFile(path.join(dir, 'cgroup.kill'), 'utf8')).toBe('1');
  });

  it('refuses an id that is not a plain name', async () => {
    const cgroups: AvailableCgroups = {
      available: true,
      version: 2,
      parents: { memory: tmp, pids: tmp, cpu: tmp },
    };
    for (const id of ['../x', '', 'a/b', '..']) {
      await expect(createSandboxCgroup(cgroups, id, { memoryMb: 64, pids: 16, cpus: 1 })).rejects.toThrow(
        /not a cgroup name/,
      );
    }
  });

  it('counts events from key-value files', () => {
    expect(eventCount('oom_kill_disable 0\nunder_oom 0\noom_kill 2\n', 'oom_kill')).toBe(2);
    expect(eventCount('max 0\n', 'max')).toBe(0);
    expect(eventCount(null, 'max')).toBe(0);
  });
});

describe('cgroupEntryArgv (plain files as cgroup.procs)', () => {
  it('writes its pid into every file, then runs the argv as given: no path or argument is shell text', async () => {
    const odd = path.join(tmp, 'a dir $(touch pwned) `x`');
    await mkdir(odd);
    const files = [path.join(odd, 'cgroup.procs'), path.join(tmp, "it's.procs")];
    const argv = ['sh', '-c', 'echo "$$" "$@"', 'zero', 'a b', '$(touch pwned)', "'q'", '--'];
    const { code, output } = await run(cgroupEntryArgv(files, argv));
    expect(code).toBe(0);
    const [pid, ...rest] = output.trim().split(' ');
    // exec keeps the pid: the program itself is the process that entered the group.
    expect((await readFile(files[0]!, 'utf8')).trim()).toBe(pid);
    expect((await readFile(files[1]!, 'utf8')).trim()).toBe(pid);
    expect(rest.join(' ')).toBe("a b $(touch pwned) 'q' --");
    await expect(readFile(path.join(tmp, 'pwned'))).rejects.toThrow(/ENOENT/);
  });

  it('keeps extra file descriptors (bwrap --info-fd 3) open across the exec', async () => {
    const { code, output } = await run(
      cgroupEntryArgv([path.join(tmp, 'cgroup.procs')], ['sh', '-c', 'echo on-fd-3 >&3']),
      true,
    );
    expect(code).toBe(0);
    expect(output).toBe('on-fd-3\n');
  });

  it('exits 125 with a message, and runs nothing, when it cannot enter the group', async () => {
    const marker = path.join(tmp, 'ran');
    const { code, output } = await run(
      cgroupEntryArgv([path.join(tmp, 'missing', 'cgroup.procs')], ['touch', marker]),
    );
    expect(code).toBe(125);
    expect(output).toMatch(/cannot enter the sandbox cgroup/);
    await expect(readFile(marker)).rejects.toThrow(/ENOENT/);
  });
});
