/**
 * The configuration every git the server runs gets, whatever tree it runs on.
 *
 * Trees are untrusted: a pushed tree, a worktree after a check, a nested repository a check left
 * behind. Settings given with `-c` outrank every config file (system, global, the repository's, a
 * nested repository's) and reach the git processes git itself starts (through
 * GIT_CONFIG_PARAMETERS), so no file in a tree can switch these back on.
 *
 * What they switch off, each a way a tree or a config file could make git run a program:
 * - core.fsmonitor (a program run on every status/add/diff), hooks (core.hooksPath at /dev/null);
 * - pagers and editors (never wanted on a server), credential helpers and askpass programs,
 *   signing programs, core.alternateRefsCommand, core.gitProxy;
 * - submodules: git never enters a nested repository (diff.ignoreSubmodules=all keeps status and
 *   diff from running a `git status` inside one, which would read that repository's own config),
 *   nor fetches, pushes or updates one.
 * External diff and textconv, filter and merge drivers are named in config only: with the system
 * and global files off (see `HARDENED_GIT_ENV`), no recursion into nested repositories, and the
 * repository's own config written by the server alone, no config a user controls defines one.
 * Diff commands also pass `--no-ext-diff --no-textconv` (`NO_DIFF_DRIVERS`).
 *
 * `safe.directory=*`: the server is the only reader of its repositories; trees a sandboxed process
 * wrote may be owned by the sandbox's own uid (the server started as root), and git would refuse
 * them as "dubious ownership".
 */
export const HARDENED_GIT_CONFIG: readonly string[] = [
  'core.fsmonitor=false',
  'core.hooksPath=/dev/null',
  'core.pager=cat',
  'core.editor=:',
  'sequence.editor=:',
  'core.askPass=',
  'credential.helper=',
  'core.alternateRefsCommand=',
  'core.gitProxy=',
  'commit.gpgSign=false',
  'tag.gpgSign=false',
  'push.gpgSign=false',
  'gpg.program=false',
  'gpg.ssh.program=false',
  'gpg.x509.program=false',
  'submodule.recurse=false',
  'diff.ignoreSubmodules=all',
  'status.submoduleSummary=false',
  'fetch.recurseSubmodules=false',
  'push.recurseSubmodules=no',
  'protocol.ext.allow=never',
  'safe.directory=*',
];

/** The same settings as git arguments, to be placed before the command. */
export function hardenedGitArgs(): string[] {
  return HARDENED_GIT_CONFIG.flatMap((pair) => ['-c', pair]);
}

/** Flags for every command that shows or compares contents (diff, log -p, show). */
export const NO_DIFF_DRIVERS = ['--no-ext-diff', '--no-textconv'] as const;

/**
 * Environment every server git gets on top of its own: no system or global config file, no
 * attributes file of the system's, no pager, no editor, no prompt.
 */
export const HARDENED_GIT_ENV: Readonly<Record<string, string>> = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_ATTR_NOSYSTEM: '1',
  GIT_PAGER: 'cat',
  GIT_EDITOR: ':',
  GIT_TERMINAL_PROMPT: '0',
};
