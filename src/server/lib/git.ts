import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inheritedPaths } from '@/server/env.js';
import { HARDENED_GIT_ENV, hardenedGitArgs } from './git-hardening.js';
import { CommandError, runCommand } from './spawner.js';

export class GitError extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(message);
    this.name = 'GitError';
  }
}

export interface GitOptions {
  cwd?: string;
  /** Kills git (and fails) after this many ms. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Largest stdout kept, in bytes; past it git is stopped and the result marked truncated. */
  maxOutputBytes?: number;
  /** Extra `-c name=value` settings, placed before the command. */
  config?: string[];
  /**
   * The command touches a URL a user chose: git gets none of the operator's configuration,
   * credentials, extra headers or ssh keys, follows no redirect, and speaks http(s) and ssh only.
   */
  untrusted?: boolean;
  /** HOME of a trusted git (the process's own by default); tests give a fake operator home. */
  home?: string;
  /** Written to git's stdin (`cat-file --batch`), which is then closed. */
  input?: Buffer | string;
  /**
   * Exit codes besides 0 that answer rather than fail (e.g. 1: `merge-tree` found conflicts),
   * returned with their stdout in `exitCode`.
   */
  answerCodes?: number[];
}

export interface GitResult {
  stdout: Buffer;
  truncated: boolean;
  /** 0, or one of the `answerCodes` asked for. */
  exitCode: number;
}

/** Commits made by AutoCoder itself, whoever the machine's git user is. */
const IDENTITY = ['-c', 'user.name=AutoCoder', '-c', 'user.email=autocoder@localhost'];

/** Settings that empty what the operator's configuration could add to a request, and limit transports. */
const UNTRUSTED_CONFIG = [
  'credential.helper=',
  'core.askPass=',
  'http.extraHeader=',
  'http.followRedirects=false',
  'http.cookieFile=',
  'protocol.allow=never',
  'protocol.http.allow=always',
  'protocol.https.allow=always',
  'protocol.ssh.allow=always',
];

/**
 * The environment of an untrusted git: an empty HOME of its own, no global or system config, no
 * prompt, and ssh with no config file, no agent and no identity (host keys are accepted on first
 * use into that empty HOME: there is nothing to compare them with).
 */
function untrustedEnv(home: string): NodeJS.ProcessEnv {
  const knownHosts = path.join(home, 'known_hosts').replace(/'/g, `'\\''`);
  return {
    PATH: inheritedPaths().path,
    HOME: home,
    XDG_CONFIG_HOME: home,
    LANG: 'C',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_SSH_COMMAND: [
      'ssh -F /dev/null -o IdentitiesOnly=yes -o IdentityFile=none -o IdentityAgent=none',
      '-o BatchMode=yes -o ConnectTimeout=15',
      `-o StrictHostKeyChecking=accept-new -o UserKnownHostsFile='${knownHosts}'`,
    ].join(' '),
  };
}

/** The environment of a git that touches only AutoCoder's own repositories: no prompt, no shell. */
export function trustedGitEnv(home?: string): NodeJS.ProcessEnv {
  return {
    PATH: inheritedPaths().path,
    HOME: home ?? inheritedPaths().home,
    LANG: 'C',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: 'echo',
    SSH_ASKPASS: 'echo',
    GIT_SSH_COMMAND: 'ssh -o BatchMode=yes -o ConnectTimeout=15',
  };
}

/**
 * Runs git without a shell, with the hardened configuration of `git-hardening.ts` (no program a
 * tree or a config file names: fsmonitor, hooks, pagers, helpers…; no system or global config).
 * Prompts are disabled (a clone that needs credentials fails instead of hanging) and the `ext::`
 * transport is refused. See `untrusted` for user URLs.
 */
export async function git(args: string[], options: GitOptions = {}): Promise<GitResult> {
  if (!options.untrusted) return runGit(args, options);
  const home = await mkdtemp(path.join(tmpdir(), 'autocoder-git-home-'));
  try {
    return await runGit(args, options, home);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

function runGit(args: string[], options: GitOptions, untrustedHome?: string): Promise<GitResult> {
  const { cwd, timeoutMs = 60_000, signal, maxOutputBytes = 64 * 1024 * 1024 } = options;
  const config = [...(untrustedHome ? UNTRUSTED_CONFIG : []), ...(options.config ?? [])];
  const settings = config.flatMap((pair) => ['-c', pair]);
  return runCommand({
    command: 'git',
    // The hardened settings come last: a later `-c` wins, so no caller's setting undoes one.
    args: [...IDENTITY, ...settings, ...hardenedGitArgs(), ...args],
    cwd,
    env: {
      ...(untrustedHome ? untrustedEnv(untrustedHome) : trustedGitEnv(options.home)),
      ...HARDENED_GIT_ENV,
    },
    timeoutMs,
    maxOutputBytes,
    signal,
    ...(options.input !== undefined ? { input: options.input } : {}),
  }).then(
    (result) => {
      if (result.truncated || result.code === 0 || options.answerCodes?.includes(result.code ?? -1))
        return { stdout: result.stdout, truncated: result.truncated, exitCode: result.code ?? 0 };
      const reason =
        result.signal === 'SIGKILL' || result.signal === 'SIGTERM'
          ? `git ${args[0]} timed out`
          : `git ${args[0]} failed`;
      const tail = result.stderr.trim().split('\n').slice(-3).join(' ');
      throw new GitError(`${reason}: ${tail}`.trim(), result.code, result.stderr);
    },
    (error: unknown) => {
      if (error instanceof CommandError) {
        throw new GitError(
          error.aborted ? 'git was cancelled' : `git could not run: ${error.message}`,
          null,
          error.stderr,
        );
      }
      throw error;
    },
  );
}

export async function gitText(args: string[], options: GitOptions = {}): Promise<string> {
  const { stdout } = await git(args, options);
  return stdout.toString('utf8');
}
