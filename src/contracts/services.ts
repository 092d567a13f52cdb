import { z } from 'zod';

/**
 * Workspace services (seed 002): processes and endpoints declared as files in a workspace's
 * `.discobot/services/`, run by AutoCoder with live output and reached through its proxies.
 */

/** A checkout services run in: the project's own (its default branch) or a run's worktree. */
export interface Workspace {
  /** 26-character ULID (the seed's session id); stable for the life of the checkout. */
  id: string;
  kind: 'project' | 'run';
  projectId: string;
  /** The run's task; null for the project workspace. */
  taskId: string | null;
  runId: string | null;
  branch: string;
  /**
   * The project workspace while its services hold it behind its branch (an approval or a push
   * moved the branch meanwhile): the commit its files are at, until its last service stops. Null
   * when it is at the branch's head, and for a run's worktree. Given in lists.
   */
  heldAt?: string | null;
}

/** GET /api/projects/:id/workspaces */
export interface WorkspaceList {
  workspaces: Workspace[];
}

/** The seed's lifecycle: stopped → starting → running → stopping → stopped, and error → stopped. */
export const SERVICE_STATUSES = ['stopped', 'starting', 'running', 'stopping', 'error'] as const;
export type ServiceStatus = (typeof SERVICE_STATUSES)[number];

/**
 * One service as the API shows it. `path` is the service file relative to the workspace (the
 * seed's field; a server path is never shown); `urlPath` is the front matter's `path`, the URL
 * path a preview opens at. `http`/`https` are `"auto"` until a port is assigned at start.
 */
export interface Service {
  id: string;
  name: string;
  description?: string;
  http?: number | 'auto';
  https?: number | 'auto';
  path: string;
  urlPath?: string;
  status: ServiceStatus;
  /** Only for passive services (front matter, no script): never started by AutoCoder. */
  passive?: true;
  pid?: number;
  startedAt?: string;
  /** How the last process ended (while the service is still remembered, 30 s after it stopped). */
  exitCode?: number | null;
  /** Why the service is in `error`: it exited on its own, or its port never opened. */
  error?: string;
}

/** A file in `.discobot/services/` that could not be read as the seed describes (it was still read as best it could). */
export interface ServiceWarning {
  file: string;
  message: string;
}

/** GET /api/workspaces/:workspaceId/services */
export interface ServiceList {
  services: Service[];
  /** Files that are not services (not executable, no shebang) or whose front matter was ignored. */
  warnings: ServiceWarning[];
}

/** POST …/:id/start → 202 */
export interface ServiceStarting {
  status: 'starting';
  serviceId: string;
}

/** POST …/:id/stop → 200 */
export interface ServiceStopped {
  status: 'stopped';
  serviceId: string;
}

/** POST …/:id/preview → the preview origin with a one-time ticket (60 s). */
export interface ServicePreview {
  url: string;
}

/** One line of a service's output (JSONL on disk, `data:` of the output SSE stream). */
export type ServiceOutputEvent =
  | { type: 'stdout' | 'stderr'; data: string; timestamp: string }
  | { type: 'exit'; exitCode: number | null; timestamp: string };

/** The SSE `data:` line that ends an output stream. */
export const OUTPUT_DONE = '[DONE]';

/** Environment variable names a project may give its services. */
export const SERVICE_ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
/** Names AutoCoder sets itself or that would change the sandbox: refused in project settings. */
export const RESERVED_SERVICE_ENV = /^(PATH|HOME|TMPDIR|PORT|AUTOCODER_.*)$/i;
export const SERVICE_ENV_MAX_ENTRIES = 100;
export const SERVICE_ENV_MAX_VALUE = 4096;

/** Project settings: the environment of the project's services (`PATCH /api/projects/:id`). */
export const serviceEnvSchema = z
  .record(
    z
      .string()
      .regex(SERVICE_ENV_NAME, 'A variable name is letters, digits and _, not starting with a digit')
      .refine(
        (name) => !RESERVED_SERVICE_ENV.test(name),
        'PATH, HOME, TMPDIR, PORT and AUTOCODER_* are set by AutoCoder',
      ),
    z
      .string()
      .max(SERVICE_ENV_MAX_VALUE, `A value is at most ${SERVICE_ENV_MAX_VALUE} characters`)
      .refine((value) => !value.includes('\0'), 'A value cannot hold a NUL character'),
  )
  .refine(
    (env) => Object.keys(env).length <= SERVICE_ENV_MAX_ENTRIES,
    `At most ${SERVICE_ENV_MAX_ENTRIES} variables`,
  );
