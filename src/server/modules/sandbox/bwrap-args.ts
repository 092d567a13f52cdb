export interface BwrapLayout {
  /** Made writable, and the working directory. */
  worktree: string;
  /** Size of the sandbox's private /tmp (a tmpfs, its HOME too), in bytes. */
  tmpBytes: number;
  /** Existing directories replaced by an empty tmpfs (the data dir, the database…). */
  hiddenDirs: readonly string[];
  /** Existing files replaced by an empty one (credential files, sockets). */
  hiddenFiles: readonly string[];
  /** Visible read-only even inside a hidden directory (the project's own git directory). */
  readOnly: readonly string[];
  /**
   * Paths inside the worktree kept read-only: its `.git` file. The server runs git in the worktree
   * after the check; a `.git` the check could rewrite would point that git at a directory of the
   * check's making.
   */
  readOnlyInWorktree: readonly string[];
  /** A host directory bound writable at the same path: the Unix sockets of the network bridges. */
  runDir?: string | undefined;
  /** Host directories bound writable at their own path besides the worktree (a project's package-manager cache). */
  writable?: readonly string[] | undefined;
  /**
   * The server runs as root: the command is switched to this unprivileged uid and gid (setpriv),
   * with no capability left in any set. Otherwise bwrap itself is unprivileged and the command keeps
   * the server's uid inside a user namespace of its own.
   */
  dropTo?: { uid: number; gid: number } | undefined;
  /** setpriv's path (with `dropTo`). */
  setpriv?: string | undefined;
  /** The seccomp program is readable on this fd (`--seccomp`). */
  seccompFd?: number | undefined;
}

/** The directories strictly between the deepest of `roots` that holds `target` and `target`, outermost first. */
function parentsInside(roots: readonly string[], target: string): string[] {
  const root = roots
    .filter((candidate) => target.startsWith(`${candidate}/`))
    .sort((a, b) => b.length - a.length)[0];
  if (!root) return [];
  const parts = target
    .slice(root.length + 1)
    .split('/')
    .slice(0, -1);
  return parts.map((_, index) => `${root}/${parts.slice(0, index + 1).join('/')}`);
}

/** bwrap tells on this fd (`--info-fd`) the host pid of the sandbox's init. */
export const BWRAP_INFO_FD = 3;
/** The compiled seccomp filter is written to bwrap on this fd. */
export const BWRAP_SECCOMP_FD = 4;

/**
 * bubblewrap's arguments for one command. Order matters: bwrap mounts in order, so hiding comes
 * after the read-only root, and the worktree comes last, visible even when it lies inside a hidden
 * directory (worktrees live in the data dir).
 *
 * - every namespace of its own but the user namespace of a root server (a user namespace there
 *   would map the command back to uid 0): PID, IPC, UTS, cgroup, and the network — the sandbox has
 *   only a loopback of its own; egress and a service's port cross through Unix sockets in `runDir`;
 * - the host filesystem read-only, a fresh /dev, a /proc of the sandbox's own, a size-capped tmpfs
 *   as /tmp;
 * - no capability: bwrap drops them all (a root server keeps only what setpriv needs to switch to
 *   the sandbox's uid, and setpriv drops those too, bounding set included, with no_new_privs);
 *   an unprivileged bwrap forbids further user namespaces (`--disable-userns`);
 * - the seccomp filter of seccomp.ts, loaded last, so it binds setpriv and everything after it;
 * - the sandbox dies with the server and runs in a session of its own (no terminal injection).
 */
export function bwrapArgs(layout: BwrapLayout, argv: readonly string[]): string[] {
  const args = [
    '--info-fd',
    String(BWRAP_INFO_FD),
    '--die-with-parent',
    '--new-session',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-net',
    '--unshare-cgroup-try',
  ];
  if (layout.dropTo) {
    args.push('--cap-drop', 'ALL');
    for (const cap of ['CAP_SETUID', 'CAP_SETGID', 'CAP_SETPCAP']) args.push('--cap-add', cap);
  } else {
    args.push('--unshare-user', '--disable-userns', '--cap-drop', 'ALL');
  }
  if (layout.seccompFd !== undefined) args.push('--seccomp', String(layout.seccompFd));
  args.push(
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--perms',
    '1777',
    '--size',
    String(layout.tmpBytes),
    '--tmpfs',
    '/tmp',
  );
  // bwrap makes the missing parents of a mount point 0700: the sandbox's own uid could not pass
  // them. They are laid out first with --dir (0755), inside the tmpfs mounts only.
  const tmpfsRoots = ['/tmp'];
  const made = new Set<string>();
  const parents = (target: string) => {
    for (const dir of parentsInside(tmpfsRoots, target)) {
      if (made.has(dir)) continue;
      made.add(dir);
      args.push('--dir', dir);
    }
  };
  for (const dir of layout.hiddenDirs) {
    parents(dir);
    args.push('--tmpfs', dir);
    tmpfsRoots.push(dir);
  }
  for (const file of layout.hiddenFiles) args.push('--ro-bind', '/dev/null', file);
  const writable = layout.writable ?? [];
  for (const target of [
    ...layout.readOnly,
    ...writable,
    ...(layout.runDir ? [layout.runDir] : []),
    layout.worktree,
  ]) {
    parents(target);
  }
  for (const dir of layout.readOnly) args.push('--ro-bind', dir, dir);
  for (const dir of writable) args.push('--bind', dir, dir);
  if (layout.runDir) args.push('--bind', layout.runDir, layout.runDir);
  args.push('--bind', layout.worktree, layout.worktree);
  for (const file of layout.readOnlyInWorktree) args.push('--ro-bind', file, file);
  args.push('--chdir', layout.worktree, '--');
  if (layout.dropTo) {
    const { uid, gid } = layout.dropTo;
    args.push(
      layout.setpriv ?? 'setpriv',
      `--reuid=${uid}`,
      `--regid=${gid}`,
      '--clear-groups',
      '--inh-caps=-all',
      '--bounding-set=-all',
      '--no-new-privs',
      '--',
    );
  }
  args.push(...argv);
  return args;
}
