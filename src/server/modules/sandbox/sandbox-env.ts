/**
 * Names a caller may never pass into a sandbox: AutoCoder's own settings and every credential it
 * holds (provider keys, database and Redis URLs). The environment is built from an allow-list
 * anyway; this refuses a caller's mistake loudly instead of leaking the secret.
 */
const FORBIDDEN = [
  /^AUTOCODER_/i,
  /^DATABASE_URL$/i,
  /^TEST_DATABASE_URL$/i,
  /^REDIS_URL$/i,
  /^PG[A-Z]*$/i,
  /^ANTHROPIC_/i,
  /^OPENAI_/i,
  /(API_?KEY|TOKEN|SECRET|PASSWORD)/i,
];

export interface SandboxEnvOptions {
  /** The server's PATH. */
  path: string;
  /** The sandbox's private home and temporary directory, as the command sees it. */
  home: string;
  /** Extra variables the caller needs (e.g. PORT for a service). */
  extra?: Record<string, string> | undefined;
  /**
   * Variables a project's owner set for their own services (project settings). They are the
   * owner's values, not the server's, so a name like `STRIPE_API_KEY` is theirs to pass; they
   * cannot replace what the sandbox sets (PATH, HOME, TMPDIR) nor the caller's `extra`.
   */
  user?: Record<string, string> | undefined;
  /** A coding agent engine's variables (SpawnOptions.agentEnv): any name but the sandbox's own. */
  agent?: Record<string, string> | undefined;
}

/** Set by the sandbox itself: a user's variable of that name would change the sandbox. */
const SANDBOX_OWN = /^(PATH|HOME|TMPDIR|AUTOCODER_.*|GIT_CONFIG_.*)$/i;

/**
 * The whole environment of a sandboxed process. Nothing is inherited from the server: a check
 * gets a PATH, a locale, a private HOME and CI=1 (test runners then neither watch nor prompt).
 */
export function sandboxEnv(options: SandboxEnvOptions): Record<string, string> {
  const env: Record<string, string> = {
    PATH: options.path,
    HOME: options.home,
    TMPDIR: options.home,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    CI: '1',
    // The command may run as the sandbox's own uid in a worktree whose git directory is the
    // server's: git there would refuse it as "dubious ownership".
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'safe.directory',
    GIT_CONFIG_VALUE_0: '*',
  };
  for (const [name, value] of Object.entries(options.user ?? {})) {
    if (SANDBOX_OWN.test(name)) throw new Error(`${name} is set by the sandbox and may not be given`);
    env[name] = value;
  }
  for (const [name, value] of Object.entries(options.extra ?? {})) {
    if (FORBIDDEN.some((pattern) => pattern.test(name))) {
      throw new Error(`${name} may not be passed to a sandboxed process`);
    }
    env[name] = value;
  }
  for (const [name, value] of Object.entries(options.agent ?? {})) {
    if (SANDBOX_OWN.test(name)) throw new Error(`${name} is set by the sandbox and may not be given`);
    env[name] = value;
  }
  return env;
}
