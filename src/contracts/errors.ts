/**
 * Error codes that cross the wire. Every non-2xx answer of the API has the body
 * `{ error: ErrorCode, message: string, ...details }`.
 */
export const ERROR_CODES = {
  VALIDATION_ERROR: 400,
  INVALID_JSON: 400,
  INVALID_PATH: 400,
  INVALID_TRANSITION: 400,
  INVALID_API_KEY: 400,
  INVALID_PIPELINE_STATE: 400,
  INVALID_AGENT_OUTPUT: 422,
  LAST_PROJECT: 400,
  IMPORT_PATH_NOT_ALLOWED: 400,
  ADDRESS_NOT_ALLOWED: 400,
  REPO_IMPORT_FAILED: 422,
  /** Running repository code (checks, services) is off on this server (AUTOCODER_SANDBOX=off). */
  SANDBOX_DISABLED: 400,
  /** The coder engine a run asks for (Claude Code, Codex) is not installed or cannot start here. */
  ENGINE_UNAVAILABLE: 400,
  UNAUTHORIZED: 401,
  INVALID_CREDENTIALS: 401,
  FORBIDDEN_ORIGIN: 403,
  NOT_FOUND: 404,
  PROJECT_NOT_FOUND: 404,
  TASK_NOT_FOUND: 404,
  FILE_NOT_FOUND: 404,
  RUN_NOT_FOUND: 404,
  /** The path asked for is not one of the files the run's diff changes. */
  DIFF_FILE_NOT_FOUND: 404,
  REPO_NOT_FOUND: 404,
  EMAIL_TAKEN: 409,
  PIPELINE_ACTIVE: 409,
  MERGE_CONFLICT: 409,
  /** A worktree or branch would be deleted while its commits are on no branch that stays. */
  WORK_NOT_MERGED: 409,
  /** The run has no branch and base commit yet (it is setting up its worktree). */
  DIFF_NOT_READY: 409,
  /** The run's branch no longer exists in the repository, so its diff cannot be computed. */
  RUN_BRANCH_GONE: 409,
  /** Retry of a run paused by its task's token budget, while the budget still does not cover its next call. */
  BUDGET_EXCEEDED: 409,
  /**
   * A worktree holds a nested git repository (a `.git` below its top level, left by a check or a
   * service): AutoCoder neither commits it nor runs git on it.
   */
  NESTED_REPOSITORY: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  MISDIRECTED_REQUEST: 421,
  RATE_LIMITED: 429,
  TOO_MANY_PIPELINES: 429,
  /** A user's running workspace services are at the limit (AUTOCODER_MAX_SERVICES_PER_USER). */
  TOO_MANY_SERVICES: 429,
  INTERNAL_ERROR: 500,
  BRANCH_NOT_FOUND: 404,
  GRAPH_UNAVAILABLE: 503,
  WORKSPACE_NOT_FOUND: 404,
  // Workspace services: seed 002's codes, spelled as the seed spells them.
  service_not_found: 404,
  service_already_running: 409,
  service_not_running: 400,
  service_no_port: 400,
  service_is_passive: 400,
  /** The service's port refused the proxy's connection (it is not listening yet, or any more). */
  connection_refused: 503,
  /** The proxy could not reach the service for another reason (reset, timeout). */
  bad_gateway: 502,
  /** A preview host was opened without a valid preview cookie (or with a used or expired ticket). */
  preview_unauthorized: 401,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The body of every error response. */
export interface ApiErrorBody {
  error: ErrorCode;
  message: string;
  /** Field-level messages for VALIDATION_ERROR, keyed by dotted path ("" for the whole body). */
  fields?: Record<string, string[]>;
  /** For INVALID_TRANSITION: the statuses a task may move to from its current one. */
  allowed?: string[];
  [key: string]: unknown;
}
