import { describe, expect, it } from 'vitest';
import type { CgroupProbe } from './cgroups-probe.js';
import { limitsConfig, resolveLimitsMode, sandboxLimits } from './sandbox-limits.js';

const available: CgroupProbe = {
  available: true,
  version: 2,
  parents: { memory: '/sys/fs/cgroup/a', pids: '/sys/fs/cgroup/a', cpu: '/sys/fs/cgroup/a' },
};
const unavailable: CgroupProbe = { available: false, reason: 'no cgroup filesystem is mounted' };
const limits = { memoryMb: 2048, pids: 512, cpus: 2 };

describe('the limits mode', () => {
  it('is cgroup when the host gives cgroups and nothing is chosen', () => {
    expect(resolveLimitsMode({ requested: undefined, host: '0.0.0.0', probe: available })).toBe('cgroup');
  });

  it('without cgroups, is none on a loopback server and off on one others can reach', () => {
    expect(resolveLimitsMode({ requested: undefined, host: '127.0.0.1', probe: unavailable })).toBe('none');
    expect(resolveLimitsMode({ requested: undefined, host: '::1', probe: unavailable })).toBe('none');
    expect(resolveLimitsMode({ requested: undefined, host: '0.0.0.0', probe: unavailable })).toBe('off');
  });

  it("is the operator's choice when set, and refuses to start with cgroup chosen but unavailable", () => {
    expect(resolveLimitsMode({ requested: 'none', host: '0.0.0.0', probe: unavailable })).toBe('none');
    expect(resolveLimitsMode({ requested: 'none', host: '0.0.0.0', probe: available })).toBe('none');
    expect(() => resolveLimitsMode({ requested: 'cgroup', host: '127.0.0.1', probe: unavailable })).toThrow(
      'AUTOCODER_SANDBOX_LIMITS=cgroup but cgroups are unavailable: no cgroup filesystem is mounted',
    );
  });
});

describe('the limits', () => {
  it('default to 2 GB, every CPU, and 512 processes or 64 per CPU past 8 CPUs', () => {
    expect(sandboxLimits({}, 2)).toEqual({ memoryMb: 2048, pids: 512, cpus: 2 });
    expect(sandboxLimits({}, 32)).toEqual({ memoryMb: 2048, pids: 2048, cpus: 32 });
    expect(sandboxLimits({ memoryMb: 4096, pids: 100, cpus: 0.5 }, 32)).toEqual({
      memoryMb: 4096,
      pids: 100,
      cpus: 0.5,
    });
  });
});

describe('choosing at start-up', () => {
  it('does not probe when the operator chose none, and says so', async () => {
    const config = await limitsConfig({
      requested: 'none',
      host: '0.0.0.0',
      limits,
      probe: () => Promise.reject(new Error('probed')),
    });
    expect(config).toMatchObject({ mode: 'none', cgroups: null });
    expect(config.warning).toMatch(/AUTOCODER_SANDBOX_LIMITS=none: repository code runs without/);
  });

  it('warns with the reason when a loopback server has no cgroups, and tells a reachable one how to choose', async () => {
    const probe = () => Promise.resolve(unavailable);
    const personal = await limitsConfig({ requested: undefined, host: '127.0.0.1', limits, probe });
    expect(personal.warning).toBe(
      'no cgroups for sandbox limits (no cgroup filesystem is mounted): repository code runs without memory, process or CPU limits',
    );
    const shared = await limitsConfig({ requested: undefined, host: '0.0.0.0', limits, probe });
    expect(shared.mode).toBe('off');
    expect(shared.warning).toMatch(/repository code is refused; set AUTOCODER_SANDBOX_LIMITS=none/);
  });

  it('hands over the cgroups, with no warning, when they are available', async () => {
    const config = await limitsConfig({
      requested: undefined,
      host: '0.0.0.0',
      limits,
      probe: () => Promise.resolve(available),
    });
    expect(config).toEqual({ mode: 'cgroup', cgroups: available, limits, warning: null });
  });
});
