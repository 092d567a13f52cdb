/**
 * The configuration every git the server runs gets, whatever tree it runs on.
 *
 * Trees are untrusted: a pushed tree, a worktree after a check, a nested repository a check left
 * behind. Settings given with `-c` outrank every config file (system, global, the repository's, a
 * nested repository's) and reach the git processes git itself starts (through
 * GIT_CONFIG_PARAMETERS, which git keeps even for the `git status` it runs inside a submodule), so
 * no file in a tree can switch these back on.
 *
 * What they switch off, each a way a tree or a config file could make git run a program:
 * - core.fsmonitor (a program run on every status/add/diff), hooks (core.hooksPath at /dev/null);
 * - pagers and editors (never wanted on a server), credential helpers and askpass programs,
 *   signing programs (and `log.showSignature`, which would run one), core.alternateRefsCommand,
 *   core.gitProxy, core.sshCommand (plain ssh; the callers' GIT_SSH_COMMAND outranks it anyway);
 * - submodules: neither fetched, pushed nor updated, and status and diff do not look inside one
 *   (diff.ignoreSubmodules=all).
 * The operator's own files stay out too: no system or global config (`HARDENED_GIT_ENV`), and no
 * global attributes or ignore file (core.attributesFile, core.excludesFile), which git reads from
 * HOME even without a global config.
 *
 * What settings cannot do. External diff and textconv, filter and merge drivers are defined in
 * config under names a tree chooses (`.gitattributes`), so they cannot be switched off one by one:
 * they are safe only in a repository whose config the server alone writes. Diff commands pass
 * `--no-ext-diff --no-textconv` (`NO_DIFF_DRIVERS`). A nested repository is the exception that
 * matters: `git add -A` and `git merge` still run `git status` inside a populated gitlink whatever
 * diff.ignoreSubmodules says (add overrides the submodule settings), and that git reads the nested
 * repository's own config and attributes, filter drivers included. So the server never runs git on
 * a worktree that holds one: `workspace/nested-git.ts` finds them, and `commitAll` also leaves
 * gitlinks out of its `add` (a service could make one between the scan and the add).
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
  'core.sshCommand=ssh',
  'core.attributesFile=/dev/null',
  'core.excludesFile=/dev/null',
  'commit.gpgSign=false',
  'tag.gpgSign=false',
  'push.gpgSign=false',
  'gpg.program=false',
  'gpg.ssh.program=false',
  'gpg.x509.program=false',
  'log.showSignature=false',
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
