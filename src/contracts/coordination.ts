import { z } from 'zod';
import { cleanString } from './common.js';

// ---- Agent tokens ----------------------------------------------------------------------------------

/** POST /api/tokens */
export const createTokenSchema = z.strictObject({
  name: cleanString().min(1, 'Name is required').max(100, 'Name must be at most 100 characters'),
});
export type CreateTokenInput = z.infer<typeof createTokenSchema>;

/** A token as listed: never its secret. */
export interface AgentToken {
  id: string;
  name: string;
  createdAt: string;
}

/** The answer to POST /api/tokens: the only time `token` is ever shown. */
export interface CreatedAgentToken {
  id: string;
  name: string;
  token: string;
}

// ---- check_status / post_status (seed 003, made exact by issue 9) ----------------------------------

export const LOCK_STATUSES = ['READING', 'WRITING'] as const;
export type LockStatus = (typeof LOCK_STATUSES)[number];

export const POST_STATUSES = ['READING', 'WRITING', 'OPEN'] as const;
export type PostStatus = (typeof POST_STATUSES)[number];

export const MAX_FILE_PATHS = 1000;
export const MAX_MESSAGE_CHARS = 500;

export const MAX_LOCK_PATH_CHARS = 4096;
export const MAX_REPO_URL_CHARS = 2048;
export const MAX_BRANCH_CHARS = 255;

/** A lock path as git names it: `\\` read as `/`, empty and `.` segments dropped. */
export const normalizeLockPath = (value: string) =>
  value
    .replace(/\\/g, '/')
    .split('/')
    .filter((part) => part !== '' && part !== '.')
    .join('/');

/** A normalized path with a `..` segment. */
export const leavesRepository = (normalized: string) => normalized.split('/').includes('..');

/**
 * A repository-relative file path, as git names it: `./` and repeated slashes are dropped; an absolute
 * path or a `..` segment is refused (a lock must name a file of the repository).
 */
export const lockPathSchema = z
  .string()
  .min(1)
  .max(MAX_LOCK_PATH_CHARS)
  .transform((value) => normalizeLockPath(value))
  .refine((value) => value !== '', 'A file path is required')
  .refine((value) => !leavesRepository(value), 'A file path may not leave the repository');

const filePaths = z
  .array(lockPathSchema)
  .max(MAX_FILE_PATHS, `At most ${MAX_FILE_PATHS} files per request`)
  .transform((paths) => [...new Set(paths)]);

/** A commit id: 7 to 64 hex digits (abbreviated or full; SHA-1 or SHA-256). */
export const COMMIT_ID = /^[0-9a-fA-F]{7,64}$/;

const commitId = z
  .string()
  .trim()
  .regex(COMMIT_ID, 'Must be a commit id (7 to 64 hex digits)')
  .transform((value) => value.toLowerCase());

/** What git refuses in a branch name (check-ref-format), control characters included. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: git refuses control characters in ref names.
export const BAD_BRANCH = /[\s~^:?*[\\\u0000-\u001f\u007f]|\.\.|@\{|\/\/|\.lock$|\/$/;

const branchName = z
  .string()
  .trim()
  .min(1, 'branch is required')
  .max(MAX_BRANCH_CHARS)
  .refine((value) => !value.startsWith('-') && !BAD_BRANCH.test(value), 'Not a valid branch name');

const common = {
  repo_url: z.string().trim().min(1, 'repo_url is required').max(MAX_REPO_URL_CHARS),
  branch: branchName,
  agent_head: commitId.optional(),
};

/** POST /api/check_status. Unknown fields are ignored, so agents written for later versions still work. */
export const checkStatusSchema = z.object({
  ...common,
  file_paths: filePaths,
});
export type CheckStatusInput = z.infer<typeof checkStatusSchema>;

/** POST /api/post_status. `message` is one sentence of intent: non-empty after trimming, ≤ 500 characters. */
export const postStatusSchema = z
  .object({
    ...common,
    file_paths: filePaths.refine((paths) => paths.length > 0, 'At least one file path is required'),
    status: z.enum(POST_STATUSES),
    message: cleanString()
      .min(1, 'message is required: one sentence saying what you are doing and why')
      .max(MAX_MESSAGE_CHARS, `message must be at most ${MAX_MESSAGE_CHARS} characters`),
    new_repo_head: commitId.optional(),
  })
  .refine((body) => body.status !== 'OPEN' || body.new_repo_head !== undefined, {
    message: 'new_repo_head is required with status OPEN',
    path: ['new_repo_head'],
  });
export type PostStatusInput = z.infer<typeof postStatusSchema>;

export const ORCHESTRATION_ACTIONS = ['PULL', 'PUSH', 'WAIT', 'SWITCH_TASK', 'STOP', 'PROCEED'] as const;
export type OrchestrationAction = (typeof ORCHESTRATION_ACTIONS)[number];

/** What the agent must do next (seed 003 §1). */
export interface Orchestration {
  type: 'orchestration_command';
  action: OrchestrationAction;
  command: string | null;
  reason: string;
  metadata?: {
    remote_head?: string | null;
    lock_owner?: string;
    conflicts?: string[];
  };
}

export type LockType = 'DIRECT' | 'NEIGHBOR';

/** Another agent's lock as an answer shows it. `timestamp` is in seconds since the epoch, as in the seed. */
export interface LockView {
  user: string;
  user_name: string;
  status: LockStatus;
  lock_type: LockType;
  message: string;
  timestamp: number;
}

export type CheckStatusResult = 'OK' | 'STALE' | 'CONFLICT' | 'OFFLINE';

export interface CheckStatusResponse {
  status: CheckStatusResult;
  repo_head: string | null;
  /** Other agents' locks on the requested files (DIRECT) and their neighbours (NEIGHBOR), by path. */
  locks: Record<string, LockView>;
  warnings: string[];
  orchestration: Orchestration;
}

export interface PostStatusResponse {
  success: boolean;
  repo_head: string | null;
  /** With OPEN and PROCEED: the files that import the ones released. */
  orphaned_dependencies: string[];
  orchestration: Orchestration;
}

// ---- Locks of a project (GET /api/projects/:projectId/locks) ------------------------------------------

/** A live lock as the board shows it: who holds which file and why; `taskId` when a pipeline run holds it. */
export interface ProjectLock {
  path: string;
  status: LockStatus;
  agent: { id: string; name: string };
  message: string;
  timestamp: number;
  taskId?: string;
}

/** The live locks on the project's default branch, where its runs and agents lock files. */
export interface ProjectLocksResponse {
  branch: string;
  locks: ProjectLock[];
}

// ---- Activity (the project's SSE stream) -----------------------------------------------------------

/** An agent's post, as the activity feed shows it. */
export interface LockActivityData {
  branch: string;
  agent: { id: string; name: string };
  files: string[];
  status: LockStatus | 'OPEN';
  message: string;
  timestamp: number;
  /** Set when the agent is one of AutoCoder's pipeline runs: the task it works on. */
  taskId?: string;
}

/** Locks the minute's clean-up deleted because their holder stopped posting. */
export interface LockExpiredData {
  branch: string;
  agent: { id: string; name: string };
  files: string[];
  message: string;
  timestamp: number;
}

/**
 * Coordination events of a project's stream: `lock-taken` (READING/WRITING granted), `lock-refused`
 * (WAIT or STOP: nothing taken), `lock-released` (OPEN), `lock-expired` (the clean-up).
 */
export type CoordinationEvent =
  | { type: 'lock-taken'; data: LockActivityData }
  | { type: 'lock-refused'; data: LockRefusedData }
  | { type: 'lock-released'; data: LockActivityData & { files: string[] } }
  | { type: 'lock-expired'; data: LockExpiredData };

/** A refusal: the files in the way, and who holds them (the first holder's id, and its name). */
export interface LockRefusedData extends LockActivityData {
  conflicts: string[];
  holder: string;
  /** The holder's name (events written before it was recorded get it from the activity route). */
  holderName?: string;
  /** Set by the activity route when the holder is one of the project's pipeline runs: its task. */
  holderTaskId?: string;
}

export const COORDINATION_EVENT_TYPES = [
  'lock-taken',
  'lock-refused',
  'lock-released',
  'lock-expired',
] as const;

// ---- Activity history (GET /api/projects/:projectId/activity) -------------------------------------

/** A coordination event of the project's stream with its id there (the SSE id). */
export type ProjectActivityEvent = CoordinationEvent & { id: number };

/** A page of the project's coordination events, newest first; `hasMore` when older ones remain. */
export interface ProjectActivityResponse {
  events: ProjectActivityEvent[];
  hasMore: boolean;
}

/** At most this many events per page of the activity history. */
export const MAX_ACTIVITY_PAGE = 100;

// ---- The answers as schemas (the MCP tools' output schemas) ----------------------------------------

const orchestrationSchema = z.object({
  type: z.literal('orchestration_command'),
  action: z.enum(ORCHESTRATION_ACTIONS),
  command: z.string().nullable(),
  reason: z.string(),
  metadata: z
    .object({
      remote_head: z.string().nullable().optional(),
      lock_owner: z.string().optional(),
      conflicts: z.array(z.string()).optional(),
    })
    .optional(),
});

const lockViewSchema = z.object({
  user: z.string(),
  user_name: z.string(),
  status: z.enum(LOCK_STATUSES),
  lock_type: z.enum(['DIRECT', 'NEIGHBOR']),
  message: z.string(),
  timestamp: z.number(),
});

/** The answer of check_status, as a schema: what the MCP tool declares as its output. */
export const checkStatusResponseSchema = z.object({
  status: z.enum(['OK', 'STALE', 'CONFLICT', 'OFFLINE']),
  repo_head: z.string().nullable(),
  locks: z.record(z.string(), lockViewSchema),
  warnings: z.array(z.string()),
  orchestration: orchestrationSchema,
});

/** The answer of post_status, as a schema. */
export const postStatusResponseSchema = z.object({
  success: z.boolean(),
  repo_head: z.string().nullable(),
  orphaned_dependencies: z.array(z.string()),
  orchestration: orchestrationSchema,
});

// The schemas and the interfaces above describe the same answers.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameAnswers: [
  Same<z.infer<typeof checkStatusResponseSchema>, CheckStatusResponse>,
  Same<z.infer<typeof postStatusResponseSchema>, PostStatusResponse>,
] = [true, true];
void sameAnswers;
