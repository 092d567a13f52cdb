import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseCgroupMounts, parseProcCgroup, probeCgroups } from './cgroups-probe.js';

// These tests lay out plain directories like cgroupfs and a fake /proc/self: they check which files the
// probe reads and writes, not what the kernel does with them (cgroups.test.ts does that, for real).
let tmp: string;
beforeEach(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'cgroups-probe-'));
});
afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function layout(files: Record<string, string>) {
  for (const [name, text] of Object.entries(files)) {
    const file = path.join(tmp, name);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, text.replaceAll('$TMP', tmp));
  }
  return { procSelf: path.join(tmp, 'proc') };
}

const read = (name: string) => readFile(path.join(tmp, name), 'utf8');

const v1Mountinfo = [
  '31 23 0:28 / $TMP/fs rw,relatime - tmpfs tmpfs rw,mode=755',
  '32 31 0:29 / $TMP/fs/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct',
  '35 31 0:32 / $TMP/fs/memory rw,relatime - cgroup cgroup rw,memory',
  '39 31 0:36 / $TMP/fs/pids rw,relatime shared:5 - cgroup cgroup rw,pids',
  '40 31 0:37 / $TMP/fs/systemd rw,relatime - cgroup cgroup rw,name=systemd',
  '41 31 0:38 / $TMP/fs/unified rw,relatime - cgroup2 cgroup2 rw',
].join('\n');

describe('reading /proc/self (parsing)', () => {
  it('reads the hierarchies and paths of /proc/self/cgroup', () => {
    expect(parseProcCgroup('4:memory:/process_api/abc\n1:cpu,cpuacct:/\n0::/user.slice\n')).toEqual([
      { hierarchyId: 4, controllers: ['memory'], path: '/process_api/abc' },
      { hierarchyId: 1, controllers: ['cpu', 'cpuacct'], path: '/' },
      { hierarchyId: 0, controllers: [], path: '/user.slice' },
    ]);
  });

  it('reads cgroup mounts from mountinfo, with optional fields and escaped spaces', () => {
    const mounts = parseCgroupMounts(
      '25 1 0:22 /docker/abc /sys/fs/cgroup/a\\040b ro,nosuid shared:9 master:2 - cgroup cgroup rw,memory\n' +
        '26 1 8:1 / / rw - ext4 /dev/sda1 rw\n',
    );
    expect(mounts).toEqual([
      {
        root: '/docker/abc',
        mountPoint: '/sys/fs/cgroup/a b',
        readOnly: true,
        fsType: 'cgroup',
        superOptions: ['rw', 'memory'],
      },
    ]);
  });
});

describe('probing cgroups (plain directories laid out like cgroupfs)', () => {
  it('v1: a parent under the server own cgroup of each hierarchy (a hybrid host with an empty v2)', async () => {
    const options = await layout({
      'proc/cgroup': '4:memory:/process_api/abc\n8:pids:/\n1:cpu,cpuacct:/\n9:name=systemd:/\n0::/\n',
      'proc/mountinfo': v1Mountinfo,
      'fs/memory/process_api/abc/cgroup.procs': '',
      'fs/pids/cgroup.procs': '',
      'fs/cpu,cpuacct/cgroup.procs': '',
      'fs/unified/cgroup.controllers': 'hugetlb\n',
    });
    expect(await probeCgroups(options)).toEqual({
      available: true,
      version: 1,
      parents: {
        memory: path.join(tmp, 'fs/memory/process_api/abc/autocoder'),
        pids: path.join(tmp, 'fs/pids/autocoder'),
        cpu: path.join(tmp, 'fs/cpu,cpuacct/autocoder'),
      },
    });
  });

  it('v1: follows a mount of a subtree (a container sees its own cgroup as the mount root)', async () => {
    const options = await layout({
      'proc/cgroup': '4:memory:/docker/c1\n8:pids:/docker/c1\n1:cpu:/docker/c1\n',
      'proc/mountinfo': [
        '35 31 0:32 /docker/c1 $TMP/fs/memory rw - cgroup cgroup rw,memory',
        '39 31 0:36 /docker/c1 $TMP/fs/pids rw - cgroup cgroup rw,pids',
        '32 31 0:29 /docker/c1 $TMP/fs/cpu rw - cgroup cgroup rw,cpu',
      ].join('\n'),
      'fs/memory/cgroup.procs': '',
      'fs/pids/cgroup.procs': '',
      'fs/cpu/cgroup.procs': '',
    });
    const probe = await probeCgroups(options);
    expect(probe.available && probe.parents.memory).toBe(path.join(tmp, 'fs/memory/autocoder'));
  });

  it('v1: unavailable, with the reason, when a controller has no hierarchy or it is read-only', async () => {
    const noPids = await layout({
      'proc/cgroup': '4:memory:/\n1:cpu:/\n',
      'proc/mountinfo': v1Mountinfo,
    });
    expect(await probeCgroups(noPids)).toEqual({
      available: false,
      reason: 'no cgroup v1 hierarchy or v2 delegation offers the pids controller',
    });
    const readOnly = await layout({
      'proc/cgroup': '4:memory:/\n8:pids:/\n1:cpu,cpuacct:/\n',
      'proc/mountinfo': v1Mountinfo.replace('$TMP/fs/memory rw,relatime', '$TMP/fs/memory ro,relatime'),
    });
    expect(await probeCgroups(readOnly)).toEqual({
      available: false,
      reason: `memory cgroups are mounted read-only at ${path.join(tmp, 'fs/memory')}`,
    });
  });

  const v2 = (controllers: string, extra: Record<string, string> = {}) =>
    layout({
      'proc/cgroup': '0::/system.slice/autocoder.service\n',
      'proc/mountinfo': '30 23 0:26 / $TMP/fs rw,nosuid - cgroup2 cgroup2 rw,nsdelegate',
      'fs/system.slice/autocoder.service/cgroup.controllers': controllers,
      'fs/system.slice/autocoder.service/cgroup.subtree_control': '',
      'fs/system.slice/autocoder.service/cgroup.type': 'domain\n',
      'fs/system.slice/autocoder.service/cgroup.procs': '4242\n',
      ...extra,
    });

  it('v2: moves the server into a leaf, then enables memory, pids and cpu for the sandboxes', async () => {
    const options = await v2('cpuset cpu io memory pids\n');
    const own = path.join(tmp, 'fs/system.slice/autocoder.service');
    expect(await probeCgroups(options)).toEqual({
      available: true,
      version: 2,
      parents: { memory: `${own}/autocoder`, pids: `${own}/autocoder`, cpu: `${own}/autocoder` },
    });
    expect(await read('fs/system.slice/autocoder.service/autocoder-server/cgroup.procs')).toBe('4242');
    expect(await read('fs/system.slice/autocoder.service/cgroup.subtree_control')).toBe('+memory +pids +cpu');
    expect(await read('fs/system.slice/autocoder.service/autocoder/cgroup.subtree_control')).toBe(
      '+memory +pids +cpu',
    );
  });

  it('v2: probed again from the leaf, uses the cgroup above it', async () => {
    const own = path.join(tmp, 'fs/system.slice/autocoder.service');
    const options = await v2('cpu memory pids\n', {
      'proc/cgroup': '0::/system.slice/autocoder.service/autocoder-server\n',
      'fs/system.slice/autocoder.service/cgroup.subtree_control': 'cpu memory pids\n',
    });
    const probe = await probeCgroups(options);
    expect(probe.available && probe.parents.pids).toBe(`${own}/autocoder`);
  });

  it('v2: the root cgroup (no cgroup.type) keeps its processes', async () => {
    const options = await layout({
      'proc/cgroup': '0::/\n',
      'proc/mountinfo': '30 23 0:26 / $TMP/fs rw - cgroup2 cgroup2 rw',
      'fs/cgroup.controllers': 'cpu memory pids',
      'fs/cgroup.subtree_control': '',
      'fs/cgroup.procs': '1\n',
    });
    expect((await probeCgroups(options)).available).toBe(true);
    await expect(read('fs/autocoder-server/cgroup.procs')).rejects.toThrow(/ENOENT/);
    expect(await read('fs/cgroup.subtree_control')).toBe('+memory +pids +cpu');
  });

  it('v2: unavailable, with the reason, when the controllers are not delegated to the server', async () => {
    const options = await v2('cpu memory\n');
    expect(await probeCgroups(options)).toEqual({
      available: false,
      reason: `cgroup v2 gives the server's cgroup (${path.join(tmp, 'fs/system.slice/autocoder.service')}) no pids controller (run it as root, or under systemd with Delegate=yes)`,
    });
  });

  it('unavailable when no cgroup filesystem is mounted', async () => {
    const options = await layout({
      'proc/cgroup': '0::/\n',
      'proc/mountinfo': '26 1 8:1 / / rw - ext4 /dev/sda1 rw\n',
    });
    expect(await probeCgroups(options)).toEqual({
      available: false,
      reason: 'no cgroup filesystem is mounted',
    });
  });
});
