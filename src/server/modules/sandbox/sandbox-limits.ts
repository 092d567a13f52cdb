import { availableParallelism } from 'node:os';
import { isLoopbackHost } from '@/server/lib/network-policy.js';
import type { SandboxLimits } from './cgroups.js';
import { type AvailableCgroups, type CgroupProbe, probeCgroups } from './cgroups-probe.js';

/**
 * Whether sandboxes get memory, process and CPU limits: in cgroups, not at all (`none`), or whether
 * repository code is refused (`off`: no cgroups on a server others can reach, and no choice made).
 */
export type LimitsMode = 'cgroup' | 'none' | 'off';

export interface LimitsChoice {
  /** AUTOCODER_SANDBOX_LIMITS as the operator set it; undefined: choose. */
  requested: 'cgroup' | 'none' | undefined;
  /** The address the server listens on (HOST). */
  host: string;
  probe: CgroupProbe;
}

/**
 * Unset, cgroups when the host gives them; without, a server on loopback (one person's machine) runs
 * code without limits, and a server others can reach runs none: one user's fork bomb or memory hog
 * must not take the machine from everyone. Throws when `cgroup` is chosen and unavailable.
 */
export function resolveLimitsMode(choice: LimitsChoice): LimitsMode {
  if (choice.requested === 'cgroup' && !choice.probe.available) {
    throw new Error(`AUTOCODER_SANDBOX_LIMITS=cgroup but cgroups are unavailable: ${choice.probe.reason}`);
  }
  if (choice.requested) return choice.requested;
  if (choice.probe.available) return 'cgroup';
  return isLoopbackHost(choice.host) ? 'none' : 'off';
}

/**
 * The limits from the settings; unset ones get defaults that let `npm ci` and a test suite run: 2 GB,
 * and every CPU of the machine. Threads count as processes and worker pools grow with the cores (a
 * Node process alone holds about a dozen threads), so the process limit is 512, or 64 per CPU on
 * machines with more than 8.
 */
export function sandboxLimits(
  settings: { memoryMb?: number | undefined; pids?: number | undefined; cpus?: number | undefined },
  machineCpus: number = availableParallelism(),
): SandboxLimits {
  return {
    memoryMb: settings.memoryMb ?? 2048,
    pids: settings.pids ?? Math.max(512, 64 * machineCpus),
    cpus: settings.cpus ?? machineCpus,
  };
}

export interface LimitsConfig {
  mode: LimitsMode;
  /** Where sandbox cgroups go; null unless the mode is `cgroup`. */
  cgroups: AvailableCgroups | null;
  limits: SandboxLimits;
  /** What to log at start-up as a warning, or null when all is as it should be. */
  warning: string | null;
}

/**
 * Chooses at start-up. With `none` set, cgroups are not probed: the probe changes the server's own
 * cgroup (it creates `autocoder/` there, and under v2 moves the server into a leaf).
 */
export async function limitsConfig(settings: {
  requested: 'cgroup' | 'none' | undefined;
  host: string;
  limits: SandboxLimits;
  probe?: () => Promise<CgroupProbe>;
}): Promise<LimitsConfig> {
  const probe: CgroupProbe =
    settings.requested === 'none'
      ? { available: false, reason: 'AUTOCODER_SANDBOX_LIMITS=none' }
      : await (settings.probe ?? probeCgroups)();
  const mode = resolveLimitsMode({ requested: settings.requested, host: settings.host, probe });
  const unavailable = probe.available ? '' : probe.reason;
  const warning =
    mode === 'none'
      ? settings.requested === 'none'
        ? 'AUTOCODER_SANDBOX_LIMITS=none: repository code runs without memory, process or CPU limits'
        : `no cgroups for sandbox limits (${unavailable}): repository code runs without memory, process or CPU limits`
      : mode === 'off'
        ? `no cgroups for sandbox limits (${unavailable}) on a server others can reach: repository code is refused; set AUTOCODER_SANDBOX_LIMITS=none to run it without limits`
        : null;
  return { mode, cgroups: probe.available ? probe : null, limits: settings.limits, warning };
}
