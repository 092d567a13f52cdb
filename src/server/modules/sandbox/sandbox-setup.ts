import type { Logger } from '@/server/lib/logger.js';
import { egressAddressPolicy } from './egress/egress-proxy.js';
import { parseAllowList } from './egress/host-allow-list.js';
import { createSandbox, type Sandbox } from './sandbox.js';
import { limitsConfig, sandboxLimits } from './sandbox-limits.js';
import { type SandboxMode, sandboxConfig } from './sandbox-mode.js';

export interface SandboxSetup {
  /** AUTOCODER_SANDBOX. */
  requested: SandboxMode | undefined;
  host: string;
  path: string;
  dataDir: string;
  user: { uid: number; gid: number };
  tmpBytes: number;
  /** AUTOCODER_SANDBOX_MAX_GROWTH_MB, in bytes. */
  maxGrowthBytes: number;
  /** AUTOCODER_SANDBOX_ALLOWED_HOSTS. */
  allowedHosts: readonly string[];
  /** AUTOCODER_ALLOWED_HOSTS: listed hosts that may resolve to private addresses (a registry mirror). */
  privateHosts: readonly string[];
  limitsMode: 'cgroup' | 'none' | undefined;
  limits: { memoryMb: number | undefined; pids: number | undefined; cpus: number | undefined };
}

/**
 * The server's sandbox, chosen once at start-up: the mode (bwrap, host, off), the limits (cgroups,
 * or none, or refusal), and what sandboxed processes may reach. Throws when a setting cannot hold
 * (bwrap asked for and missing, cgroups asked for and unavailable, an allow-list entry that does not
 * parse); logs what the operator should know.
 */
export async function setUpSandbox(setup: SandboxSetup, logger: Logger): Promise<Sandbox> {
  const base = sandboxConfig({
    requested: setup.requested,
    host: setup.host,
    path: setup.path,
    dataDir: setup.dataDir,
    user: setup.user,
    tmpBytes: setup.tmpBytes,
  });
  const list = parseAllowList(setup.allowedHosts);
  if (list.errors.length > 0) {
    throw new Error(`AUTOCODER_SANDBOX_ALLOWED_HOSTS: ${list.errors.join('; ')}`);
  }
  if (base.mode === 'off') return createSandbox(base);
  const limits = await limitsConfig({
    requested: setup.limitsMode,
    host: setup.host,
    limits: sandboxLimits(setup.limits),
  });
  if (limits.warning) logger.warn(limits.warning);
  return createSandbox({
    ...base,
    maxGrowthBytes: setup.maxGrowthBytes,
    network: {
      allowList: list.patterns,
      // A sandbox never reaches the operator's loopback or private network, even on a laptop,
      // unless the operator names the host in AUTOCODER_ALLOWED_HOSTS too.
      policy: egressAddressPolicy(setup.privateHosts),
      logger,
    },
    ...(limits.mode === 'cgroup' && limits.cgroups
      ? { limits: { cgroups: limits.cgroups, limits: limits.limits } }
      : {}),
    ...(limits.mode === 'off' && limits.warning ? { refused: limits.warning } : {}),
  });
}
