export interface BwrapLayout {
  /** Made writable, and the working directory. */
  worktree: string;
  /** A host directory mounted as the sandbox's /tmp (its HOME too). */
  privateTmp: string;
  /** Existing directories replaced by an empty tmpfs (the data dir, the database…). */
  hiddenDirs: readonly string[];
  /** Existing files replaced by an empty one (credential files, sockets). */
  hiddenFiles: readonly string[];
  /** Visible read-only even inside a hidden directory (the project's own git directory). */
  readOnly: readonly string[];
  /**
   * Paths inside the worktree kept read-only: its `.git` file. The server runs git in the worktree
   * after the check; a `.git` the check could rewrite would point that git at a directory of the
   * check's making, whose config (core.fsmonitor, hooks) runs commands outside the sandbox.
   */
  readOnlyInWorktree: readonly string[];
}

/**
 * bubblewrap's arguments for one command. Order matters: bwrap mounts in order, so hiding comes
 * after the read-only root and the worktree comes last, visible even when it lies inside a
 * hidden directory (worktrees live in the data dir).
 *
 * - the host filesystem read-only, a fresh /dev and a /proc of the sandbox's own PID namespace
 *   (the server's environment in /proc/<pid>/environ is out of sight);
 * - every namespace unshared but the network: a check may need a package registry;
 * - the sandbox dies with the server and runs in a session of its own (no terminal injection);
 * - bwrap tells on fd 3 (`--info-fd`) the host pid of the sandbox's init, so that a stop can signal
 *   the command's session inside, and kill the whole PID namespace at the end.
 */
export const BWRAP_INFO_FD = 3;

export function bwrapArgs(layout: BwrapLayout, argv: readonly string[]): string[] {
  const args = [
    '--info-fd',
    String(BWRAP_INFO_FD),
    '--die-with-parent',
    '--new-session',
    '--unshare-all',
    '--share-net',
    '--unshare-pid',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--bind',
    layout.privateTmp,
    '/tmp',
  ];
  for (const dir of layout.hiddenDirs) args.push('--tmpfs', dir);
  for (const file of layout.hiddenFiles) args.push('--ro-bind', '/dev/null', file);
  for (const dir of layout.readOnly) args.push('--ro-bind', dir, dir);
  args.push('--bind', layout.worktree, layout.worktree);
  for (const file of layout.readOnlyInWorktree) args.push('--ro-bind', file, file);
  args.push('--chdir', layout.worktree, '--', ...argv);
  return args;
}
