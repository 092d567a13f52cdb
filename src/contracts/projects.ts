import { z } from 'zod';
import { cleanString } from './common.js';
import { sandboxAllowedHostsSchema } from './sandbox-hosts.js';
import { serviceEnvSchema } from './services.js';

const projectName = cleanString().min(1, 'Name is required').max(100, 'Name must be at most 100 characters');

/** POST /api/projects — a new empty repository, or a clone of `importPath` / `repoUrl`. */
export const createProjectSchema = z
  .strictObject({
    name: projectName,
    importPath: cleanString().min(1).max(4096).optional(),
    repoUrl: cleanString().min(1).max(2048).optional(),
  })
  .refine((body) => !(body.importPath && body.repoUrl), {
    message: 'Give importPath or repoUrl, not both',
    path: ['repoUrl'],
  });

/** The repository's own check (`checkCommand`): at most this many characters. */
export const CHECK_COMMAND_MAX_LENGTH = 1000;
/** Seconds a check may run (`checkTimeoutSeconds`). */
export const CHECK_TIMEOUT_SECONDS = { min: 10, max: 3600, default: 300 } as const;

/**
 * Tokens (input + output, over all runs of a task) a task may spend (`taskTokenBudget`); null: no
 * budget. The upper bound keeps it in a 32-bit column.
 */
export const TASK_TOKEN_BUDGET = { min: 1, max: 2_000_000_000 } as const;

/**
 * How the coder does its step (`coderEngine`): `autocoder`, AutoCoder's own loop of tool calls on
 * the worktree (read, search, edit, run the check), where the provider has tool use; `one-shot`,
 * one answer of whole files per subtask (models without tool use, the seed's format);
 * `claude-code` and `codex`, the person's own coding agent (Claude Code, Codex) run in the
 * sandbox on the worktree, under the locks (GET /api/engines says which are installed).
 */
export const CODER_ENGINES = ['autocoder', 'one-shot', 'claude-code', 'codex'] as const;
export type CoderEngineId = (typeof CODER_ENGINES)[number];
export const CODER_ENGINE_LABELS: Record<CoderEngineId, string> = {
  autocoder: 'AutoCoder agent (reads, searches, edits, runs the check)',
  'one-shot': 'One-shot (whole files in one answer)',
  'claude-code': 'Claude Code (in the sandbox)',
  codex: 'Codex (in the sandbox)',
};
/** Seconds a worktree's setup may run (`setupTimeoutSeconds`). */
export const SETUP_TIMEOUT_SECONDS = { min: 10, max: 3600, default: 600 } as const;

/** Tool calls one agent step may make (`maxToolCalls`). */
export const MAX_TOOL_CALLS = { min: 1, max: 500, default: 60 } as const;
export const coderEngineSchema = z.enum(CODER_ENGINES, {
  error: `The coder engine must be one of ${CODER_ENGINES.join(', ')}`,
});

/** PATCH /api/projects/:id — any of the fields; an empty check command clears it, a null budget removes it. */
export const updateProjectSchema = z
  .strictObject({
    name: projectName.optional(),
    checkCommand: cleanString()
      .max(
        CHECK_COMMAND_MAX_LENGTH,
        `The check command must be at most ${CHECK_COMMAND_MAX_LENGTH} characters`,
      )
      .transform((value) => value || null)
      .nullable()
      .optional(),
    setupCommand: cleanString()
      .max(
        CHECK_COMMAND_MAX_LENGTH,
        `The setup command must be at most ${CHECK_COMMAND_MAX_LENGTH} characters`,
      )
      .transform((value) => value || null)
      .nullable()
      .optional(),
    setupTimeoutSeconds: z
      .number()
      .int('The setup timeout must be a whole number of seconds')
      .min(
        SETUP_TIMEOUT_SECONDS.min,
        `The setup timeout must be at least ${SETUP_TIMEOUT_SECONDS.min} seconds`,
      )
      .max(
        SETUP_TIMEOUT_SECONDS.max,
        `The setup timeout must be at most ${SETUP_TIMEOUT_SECONDS.max} seconds`,
      )
      .optional(),
    checkTimeoutSeconds: z
      .number()
      .int('The check timeout must be a whole number of seconds')
      .min(
        CHECK_TIMEOUT_SECONDS.min,
        `The check timeout must be at least ${CHECK_TIMEOUT_SECONDS.min} seconds`,
      )
      .max(
        CHECK_TIMEOUT_SECONDS.max,
        `The check timeout must be at most ${CHECK_TIMEOUT_SECONDS.max} seconds`,
      )
      .optional(),
    taskTokenBudget: z
      .number('The token budget must be a number of tokens, or null for none')
      .int('The token budget must be a whole number of tokens')
      .min(TASK_TOKEN_BUDGET.min, `The token budget must be at least ${TASK_TOKEN_BUDGET.min} token`)
      .max(
        TASK_TOKEN_BUDGET.max,
        `The token budget must be at most ${TASK_TOKEN_BUDGET.max.toLocaleString('en-US')} tokens`,
      )
      .nullable()
      .optional(),
    /** Environment variables of the project's services (the whole set: it replaces the previous one). */
    serviceEnv: serviceEnvSchema.optional(),
    /**
     * Hosts the project's checks and services may reach, within the operator's list; null: the
     * operator's whole list; []: no network.
     */
    sandboxAllowedHosts: sandboxAllowedHostsSchema.nullable().optional(),
    /** How the coder does its step; a task may override it. */
    coderEngine: coderEngineSchema.optional(),
    maxToolCalls: z
      .number('The tool-call limit must be a number')
      .int('The tool-call limit must be a whole number')
      .min(MAX_TOOL_CALLS.min, `The tool-call limit must be at least ${MAX_TOOL_CALLS.min}`)
      .max(MAX_TOOL_CALLS.max, `The tool-call limit must be at most ${MAX_TOOL_CALLS.max}`)
      .optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message:
      'Give at least one of name, checkCommand, checkTimeoutSeconds, setupCommand, setupTimeoutSeconds, taskTokenBudget, serviceEnv, sandboxAllowedHosts, coderEngine, maxToolCalls',
  });

export const filePathQuerySchema = z.strictObject({ path: z.string().min(1).max(4096) });

export type CreateProjectInput = z.infer<typeof createProjectSchema>;
export type UpdateProjectInput = z.infer<typeof updateProjectSchema>;

export interface Project {
  id: string;
  name: string;
  /**
   * Where the repository came from: the URL it was cloned from, or the `origin` of an imported local
   * repository (credentials removed). Null for a new repository, or a local one without a network origin:
   * a path on the server is never shown.
   */
  repoUrl: string | null;
  defaultBranch: string;
  /** Run with `sh -c` in a run's worktree after every coding and fixing step; null: no check. */
  checkCommand: string | null;
  /** The check fails when it runs longer than this (10–3600). */
  checkTimeoutSeconds: number;
  /**
   * Run with `sh -c` in every new worktree before its first check, service or coder step (e.g.
   * `npm ci`), its result cached by the lockfiles' content; null: none (GET /api/projects/:id/setup
   * proposes one).
   */
  setupCommand: string | null;
  /** The setup fails when it runs longer than this (10–3600). */
  setupTimeoutSeconds: number;
  /**
   * Tokens (input + output) each task may spend over all its runs; a provider call that could pass
   * it is not made and the run pauses (`budget_exceeded`). Null: no budget.
   */
  taskTokenBudget: number | null;
  /** Environment variables the project's services get (issue 10); the owner's own values. */
  serviceEnv: Record<string, string>;
  /**
   * Hosts the project's sandboxes (checks, services) may reach, within the operator's
   * AUTOCODER_SANDBOX_ALLOWED_HOSTS; null: the operator's whole list; []: no network.
   */
  sandboxAllowedHosts: string[] | null;
  /** How the coder does its step (a task may override it): see CODER_ENGINES. */
  coderEngine: CoderEngineId;
  /** Tool calls one agent step may make before the run pauses (`agent_stuck`). */
  maxToolCalls: number;
  createdAt: string;
  updatedAt: string;
}

/** GET /api/projects/import-options — what the import dialog may offer on this server. */
export interface ImportOptions {
  /** Import from a path on the server is on (the operator set AUTOCODER_IMPORT_ROOTS). */
  localImport: boolean;
}

export interface TreeEntry {
  path: string;
  size: number;
}

export interface ProjectTree {
  branch: string;
  commit: string | null;
  entries: TreeEntry[];
}

export interface ProjectFile {
  path: string;
  size: number;
  /** False when the file looks binary; `content` is then empty. */
  isText: boolean;
  /** True when the file is larger than the server sends; `content` then holds its beginning. */
  truncated: boolean;
  content: string;
}

/** GET /api/projects/:id/setup — the setup command, what AutoCoder proposes, and the dependency cache. */
export interface ProjectSetupInfo {
  setupCommand: string | null;
  /** Proposed from the repository's lockfiles when no setup command is set; never run until accepted. */
  proposal: { command: string; because: string } | null;
  cache: {
    /** Installed results kept for this project, most recently used first. */
    entries: {
      key: string;
      command: string;
      bytes: number;
      paths: string[];
      createdAt: string;
      lastUsedAt: string;
    }[];
    bytes: number;
    /** The cap of this project's entries, and of every project's together (AUTOCODER_CACHE_MAX_GB). */
    maxBytes: number;
    totalMaxBytes: number;
  };
}
