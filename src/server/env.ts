import path from 'node:path';
import { z } from 'zod';

/** A `,`-separated list of names, trimmed, empty entries dropped. */
const commaList = () =>
  z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean),
    );

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  AUTOCODER_DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'DATABASE_URL must be a postgres:// URL')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  REDIS_URL: z.string().optional(),
  /** A file lock expires this long after its holder last posted it (seed 003: 5 minutes). */
  LOCK_TTL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
  /** How long a pipeline run waits for another agent's WRITING lock before it pauses with `lock_conflict`. */
  LOCK_WAIT_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  /** Login/register requests allowed per client address per minute. */
  AUTOCODER_RATE_LIMIT_AUTH_PER_MINUTE: z.coerce.number().int().min(1).default(30),
  /** The operator's default Anthropic key; a request's x-anthropic-key wins. Never logged or stored. */
  ANTHROPIC_API_KEY: z.string().optional(),
  /** An Anthropic-compatible endpoint (the SDK's own variable). */
  ANTHROPIC_BASE_URL: z.string().optional(),
  /** The operator's default Claude Code OAuth token (`claude setup-token`), for the claude-code engine. */
  CLAUDE_CODE_OAUTH_TOKEN: z.string().optional(),
  OPENAI_BASE_URL: z.string().optional(),
  OPENAI_API_KEY: z.string().optional(),
  /** Use a simulator that is already running (npm run simulator) instead of starting one in-process. */
  AUTOCODER_SIMULATOR_URL: z.string().optional(),
  /** Pause between simulated chunks, so a person can watch the agents type. */
  AUTOCODER_SIMULATOR_DELAY_MS: z.coerce.number().int().min(0).max(10_000).default(15),
  /** Absolute directories (":"-separated) whose repositories users may import by path; unset: off. */
  AUTOCODER_IMPORT_ROOTS: z
    .string()
    .default('')
    .transform((value) => value.split(':').filter(Boolean))
    .refine(
      (roots) => roots.every((root) => path.isAbsolute(root)),
      'every import root must be an absolute path',
    ),
  /** Hosts (comma-separated) that user-chosen URLs may reach even on a private or loopback address. */
  AUTOCODER_ALLOWED_HOSTS: commaList(),
  /** Open SSE streams per user; opening one more closes that user's oldest. */
  AUTOCODER_SSE_MAX_STREAMS_PER_USER: z.coerce.number().int().min(1).max(100_000).default(50),
  /** Workspace services one user may run at once; one more start answers 429 TOO_MANY_SERVICES. */
  AUTOCODER_MAX_SERVICES_PER_USER: z.coerce.number().int().min(1).max(10_000).default(10),
  /** Largest answer accepted from one agent call, in bytes; past it the stream is aborted and the run paused. */
  AUTOCODER_MAX_ANSWER_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  /** Largest file (blob) a push may bring, uncompressed, in bytes; a push with a larger one is refused whole. */
  AUTOCODER_MAX_BLOB_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(50 * 1024 * 1024),
  /** Largest sum of the uncompressed sizes of one push's objects, in bytes. */
  AUTOCODER_MAX_PUSH_UNPACKED_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024 * 1024),
  /** How long a run may work (from its start or a retry) before it is paused with `run_timeout` (NFR-04-013). */
  /** The dependency cache of worktree setups: every project's entries together, and one project's, in GB. */
  AUTOCODER_CACHE_MAX_GB: z.coerce.number().min(0).default(10),
  AUTOCODER_CACHE_PROJECT_MAX_GB: z.coerce.number().min(0).default(2),
  AUTOCODER_RUN_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(10 * 60_000),
  /** Trust X-Forwarded-For / X-Forwarded-Proto from a reverse proxy in front of the server. */
  TRUST_PROXY: z
    .enum(['true', 'false', '1', '0', ''])
    .default('false')
    .transform((value) => value === 'true' || value === '1'),
  /** The URL users reach the app at (behind a proxy, or on another port): its host is the only one answered. */
  AUTOCODER_PUBLIC_URL: z
    .url({ protocol: /^https?$/, message: 'AUTOCODER_PUBLIC_URL must be an http(s):// URL' })
    .optional()
    .or(z.literal('').transform(() => undefined)),
  /** Subdomains of this domain are reserved for app previews. */
  AUTOCODER_BASE_DOMAIN: z.string().min(1).default('localhost'),
  /**
   * How repository code (checks, later services) runs: `bwrap` (bubblewrap), `host` (as the server's
   * user, a single-person install), `off` (refused). Unset: bwrap when installed, else host on a loopback
   * HOST and off otherwise (modules/sandbox/sandbox-mode.ts).
   */
  AUTOCODER_SANDBOX: z
    .enum(['bwrap', 'host', 'off'])
    .optional()
    .or(z.literal('').transform(() => undefined)),
  /** Memory of one sandbox in MB (its cgroup's; swap does not add to it). Unset: 2048. */
  AUTOCODER_SANDBOX_MEMORY_MB: z.coerce.number().int().min(64).max(16_777_216).optional(),
  /** Processes and threads of one sandbox. Unset: 512, or 64 per CPU on machines with more than 8. */
  AUTOCODER_SANDBOX_PIDS: z.coerce.number().int().min(16).max(4_194_304).optional(),
  /** CPU time of one sandbox as a number of CPUs (`1.5` allowed). Unset: every CPU of the machine. */
  AUTOCODER_SANDBOX_CPUS: z.coerce.number().min(0.01).max(65_536).optional(),
  /**
   * Sandbox limits: `cgroup` (enforced) or `none`. Unset: cgroup when the host gives cgroups, else none
   * on a loopback HOST and refused otherwise (modules/sandbox/sandbox-limits.ts).
   */
  AUTOCODER_SANDBOX_LIMITS: z
    .enum(['cgroup', 'none'])
    .optional()
    .or(z.literal('').transform(() => undefined)),
  /** A root server runs sandboxed commands as this unprivileged uid (and AUTOCODER_SANDBOX_GID, default the same). */
  AUTOCODER_SANDBOX_UID: z.coerce.number().int().min(1).max(2_147_483_646).default(61000),
  AUTOCODER_SANDBOX_GID: z.coerce.number().int().min(1).max(2_147_483_646).optional(),
  /** The most a worktree may grow in one step (a check), in MB. */
  AUTOCODER_SANDBOX_MAX_GROWTH_MB: z.coerce.number().int().min(1).max(1_048_576).default(4096),
  /** Size of a sandbox's private /tmp (a tmpfs), in MB. */
  AUTOCODER_SANDBOX_TMP_MB: z.coerce.number().int().min(16).max(1_048_576).default(1024),
  /** Hosts sandboxed processes may reach through AutoCoder's egress proxies (`,`-separated; unset: no network). */
  AUTOCODER_SANDBOX_ALLOWED_HOSTS: commaList(),
  /** Searched for bwrap, and the PATH a sandboxed command gets. */
  PATH: z.string().default('/usr/local/bin:/usr/bin:/bin'),
  /** Bearer token of GET /api/metrics; unset, the route does not exist. */
  AUTOCODER_METRICS_TOKEN: z
    .string()
    .min(16, 'AUTOCODER_METRICS_TOKEN must be at least 16 characters')
    .optional()
    .or(z.literal('').transform(() => undefined)),
});

export type Env = {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  lockTtlSeconds: number;
  lockWaitSeconds: number;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  trustProxy: boolean;
  publicUrl: string | undefined;
  baseDomain: string;
  metricsToken: string | undefined;
  authRequestsPerMinute: number;
  anthropicApiKey: string | undefined;
  anthropicBaseUrl: string | undefined;
  claudeCodeToken: string | undefined;
  openaiBaseUrl: string | undefined;
  openaiApiKey: string | undefined;
  simulatorUrl: string | undefined;
  simulatorDelayMs: number;
  importRoots: string[];
  allowedHosts: string[];
  sseMaxStreamsPerUser: number;
  maxServicesPerUser: number;
  maxAnswerBytes: number;
  /** AUTOCODER_MAX_BLOB_BYTES and AUTOCODER_MAX_PUSH_UNPACKED_BYTES: what one push may bring. */
  gitPush: { maxBlobBytes: number; maxUnpackedBytes: number };
  runTimeoutMs: number;
  /** AUTOCODER_CACHE_MAX_GB and AUTOCODER_CACHE_PROJECT_MAX_GB, in bytes. */
  depCache: { totalMaxBytes: number; projectMaxBytes: number };
  /** AUTOCODER_SANDBOX as set (undefined: choose from what is installed and HOST). */
  sandboxMode: 'bwrap' | 'host' | 'off' | undefined;
  /** AUTOCODER_SANDBOX_MEMORY_MB, _PIDS, _CPUS as set (undefined: the defaults of sandboxLimits). */
  sandboxLimits: { memoryMb: number | undefined; pids: number | undefined; cpus: number | undefined };
  /** AUTOCODER_SANDBOX_LIMITS as set (undefined: cgroup when available). */
  sandboxLimitsMode: 'cgroup' | 'none' | undefined;
  /** The server's PATH: where bwrap is looked for, and the PATH of sandboxed commands. */
  path: string;
  /** The uid and gid a root server runs sandboxed commands as. */
  sandboxUser: { uid: number; gid: number };
  /** Size of a sandbox's private /tmp, in bytes. */
  sandboxTmpBytes: number;
  /** The most a worktree may grow in one step, in bytes. */
  sandboxMaxGrowthBytes: number;
  /** AUTOCODER_SANDBOX_ALLOWED_HOSTS: what sandboxed processes may reach (empty: nothing). */
  sandboxAllowedHosts: string[];
};

/** The only reader of process.env. Throws a readable error listing every bad variable. */
export function loadEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const parsed = envSchema.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const env = parsed.data;
  return {
    port: env.PORT,
    host: env.HOST,
    dataDir: path.resolve(env.AUTOCODER_DATA_DIR),
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    lockTtlSeconds: env.LOCK_TTL_SECONDS,
    lockWaitSeconds: env.LOCK_WAIT_SECONDS,
    logLevel: env.LOG_LEVEL,
    trustProxy: env.TRUST_PROXY,
    publicUrl: env.AUTOCODER_PUBLIC_URL || undefined,
    baseDomain: env.AUTOCODER_BASE_DOMAIN.toLowerCase(),
    metricsToken: env.AUTOCODER_METRICS_TOKEN || undefined,
    authRequestsPerMinute: env.AUTOCODER_RATE_LIMIT_AUTH_PER_MINUTE,
    anthropicApiKey: env.ANTHROPIC_API_KEY || undefined,
    anthropicBaseUrl: env.ANTHROPIC_BASE_URL || undefined,
    claudeCodeToken: env.CLAUDE_CODE_OAUTH_TOKEN || undefined,
    openaiBaseUrl: env.OPENAI_BASE_URL || undefined,
    openaiApiKey: env.OPENAI_API_KEY || undefined,
    simulatorUrl: env.AUTOCODER_SIMULATOR_URL || undefined,
    simulatorDelayMs: env.AUTOCODER_SIMULATOR_DELAY_MS,
    importRoots: env.AUTOCODER_IMPORT_ROOTS.map((root) => path.resolve(root)),
    allowedHosts: env.AUTOCODER_ALLOWED_HOSTS,
    sseMaxStreamsPerUser: env.AUTOCODER_SSE_MAX_STREAMS_PER_USER,
    maxServicesPerUser: env.AUTOCODER_MAX_SERVICES_PER_USER,
    maxAnswerBytes: env.AUTOCODER_MAX_ANSWER_BYTES,
    gitPush: {
      maxBlobBytes: env.AUTOCODER_MAX_BLOB_BYTES,
      maxUnpackedBytes: env.AUTOCODER_MAX_PUSH_UNPACKED_BYTES,
    },
    runTimeoutMs: env.AUTOCODER_RUN_TIMEOUT_MS,
    depCache: {
      totalMaxBytes: Math.round(env.AUTOCODER_CACHE_MAX_GB * 1024 ** 3),
      projectMaxBytes: Math.round(
        Math.min(env.AUTOCODER_CACHE_PROJECT_MAX_GB, env.AUTOCODER_CACHE_MAX_GB) * 1024 ** 3,
      ),
    },
    sandboxMode: env.AUTOCODER_SANDBOX || undefined,
    sandboxLimits: {
      memoryMb: env.AUTOCODER_SANDBOX_MEMORY_MB,
      pids: env.AUTOCODER_SANDBOX_PIDS,
      cpus: env.AUTOCODER_SANDBOX_CPUS,
    },
    sandboxLimitsMode: env.AUTOCODER_SANDBOX_LIMITS || undefined,
    path: env.PATH,
    sandboxUser: {
      uid: env.AUTOCODER_SANDBOX_UID,
      gid: env.AUTOCODER_SANDBOX_GID ?? env.AUTOCODER_SANDBOX_UID,
    },
    sandboxTmpBytes: env.AUTOCODER_SANDBOX_TMP_MB * 1024 * 1024,
    sandboxMaxGrowthBytes: env.AUTOCODER_SANDBOX_MAX_GROWTH_MB * 1024 * 1024,
    sandboxAllowedHosts: env.AUTOCODER_SANDBOX_ALLOWED_HOSTS,
  };
}

/** Where child processes (git) find programs, and the HOME a trusted git reads its config from. */
export function inheritedPaths(): { path: string; home: string } {
  return { path: process.env.PATH ?? '/usr/bin:/bin', home: process.env.HOME ?? '/tmp' };
}
