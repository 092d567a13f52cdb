import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { isLoopbackHost } from '@/server/lib/network-policy.js';

/** How repository code runs: in bubblewrap, as the server's own user, or not at all. */
export type SandboxMode = 'bwrap' | 'host' | 'off';

/** The first executable `bwrap` on `searchPath` (":"-separated), or null. */
export function findBwrap(searchPath: string): string | null {
  return findProgram('bwrap', searchPath);
}

/** The first executable `name` on `searchPath` (":"-separated), or null. */
export function findProgram(name: string, searchPath: string): string | null {
  for (const dir of searchPath.split(':')) {
    if (!dir || !path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory: look in the next one
    }
  }
  return null;
}

export interface ModeChoice {
  /** AUTOCODER_SANDBOX as the operator set it; undefined: choose. */
  requested: SandboxMode | undefined;
  /** The address the server listens on (HOST). */
  host: string;
  /** Where bwrap is, or null when it is not installed. */
  bwrapPath: string | null;
}

/**
 * The mode the server runs repository code in. Unset, bubblewrap wins when installed; without it a
 * server on loopback (one person's machine) runs code as itself, and a server others can reach runs
 * none: code the agents wrote must not run with the server's rights on a shared install.
 */
export function resolveSandboxMode(choice: ModeChoice): SandboxMode {
  if (choice.requested === 'bwrap' && !choice.bwrapPath) {
    throw new Error(
      'AUTOCODER_SANDBOX=bwrap but bwrap was not found on PATH (Debian: apt-get install bubblewrap)',
    );
  }
  if (choice.requested) return choice.requested;
  if (choice.bwrapPath) return 'bwrap';
  return isLoopbackHost(choice.host) ? 'host' : 'off';
}

export interface SandboxSettings {
  /** AUTOCODER_SANDBOX. */
  requested: SandboxMode | undefined;
  /** HOST. */
  host: string;
  /** The server's PATH. */
  path: string;
  /** AutoCoder's data directory (repositories, worktrees, the PGlite database). */
  dataDir: string;
  /** Other directories holding AutoCoder's secrets or data (a database directory outside the data dir). */
  alsoHidden?: readonly string[];
  /** The uid and gid sandboxed commands run as when the server is root (AUTOCODER_SANDBOX_UID/GID). */
  user?: { uid: number; gid: number };
  /** Size of a sandbox's private /tmp, in bytes (AUTOCODER_SANDBOX_TMP_MB). */
  tmpBytes?: number;
  /** The server's own uid (`process.getuid()`); tests pass another. */
  serverUid?: number;
}

/** The uid a root server's sandboxed commands run as, unless the operator names another. */
export const DEFAULT_SANDBOX_USER = { uid: 61000, gid: 61000 };

/** The sandbox's configuration from the server's settings; throws when bwrap is chosen but missing. */
export function sandboxConfig(settings: SandboxSettings) {
  const bwrapPath = findBwrap(settings.path);
  const mode = resolveSandboxMode({ requested: settings.requested, host: settings.host, bwrapPath });
  return {
    mode,
    bwrapPath,
    path: settings.path,
    hidden: [settings.dataDir, ...(settings.alsoHidden ?? [])],
    user: settings.user,
    serverUid: settings.serverUid,
    tmpBytes: settings.tmpBytes,
  };
}
