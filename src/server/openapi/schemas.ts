import { z } from '@hono/zod-openapi';
import type { MeResponse, User } from '@/contracts/auth.js';
import { loginSchema, registerSchema } from '@/contracts/auth.js';
import type { Health } from '@/contracts/health.js';
import {
  ACTIVE_PHASES,
  AGENT_TYPES,
  type AgentCallUsage,
  ERROR_TYPES,
  type ErrorDetails,
  FILE_ACTIONS,
  FINDING_SEVERITIES,
  PIPELINE_PHASES,
  PIPELINE_STATUSES,
  type PipelineEventType,
  type PipelineRunDetail,
  type PipelineRunSummary,
  PROVIDERS,
  requestChangesSchema,
  runOptionsSchema,
} from '@/contracts/pipeline.js';
import {
  CODER_ENGINES,
  createProjectSchema,
  filePathQuerySchema,
  type ImportOptions,
  type Project,
  type ProjectFile,
  type ProjectTree,
  updateProjectSchema,
} from '@/contracts/projects.js';
import { reviewCommentInputSchema } from '@/contracts/review-comments.js';
import {
  createTaskSchema,
  listTasksQuerySchema,
  updateTaskSchema,
  updateTaskStatusSchema,
} from '@/contracts/tasks.js';

/*
 * The OpenAPI names of the shared request schemas, and zod schemas of what the API answers. The
 * answers' types live in `src/contracts` as interfaces (the web app reads them); each schema here is
 * typed as `z.ZodType<ThatInterface>`, so a field added to the interface and not here fails to compile.
 * `.openapi()` comes from @hono/zod-openapi's extension of zod, which only the server loads.
 */

/**
 * `.openapi(name)` for a schema of the contracts. Zod copies a class's methods onto an instance when
 * it builds it, so a schema built before @hono/zod-openapi extended zod (the contracts load first in
 * some processes) has no `.openapi` of its own: the extension's method is called on it instead.
 */
export function named<S extends z.ZodType>(schema: S, name: string): S {
  return z.ZodType.prototype.openapi.call(schema, name) as unknown as S;
}

// ---- Requests (the contracts' own schemas, named) ---------------------------------------------

export const RegisterBody = named(registerSchema, 'RegisterBody');
export const LoginBody = named(loginSchema, 'LoginBody');
export const CreateProjectBody = named(createProjectSchema, 'CreateProjectBody');
export const UpdateProjectBody = named(updateProjectSchema, 'UpdateProjectBody');
export const FilePathQuery = filePathQuerySchema;
export const CreateTaskBody = named(createTaskSchema, 'CreateTaskBody');
export const UpdateTaskBody = named(updateTaskSchema, 'UpdateTaskBody');
export const MoveTaskBody = named(updateTaskStatusSchema, 'MoveTaskBody');
export const ListTasksQuery = listTasksQuerySchema;
export const RunOptionsBody = named(runOptionsSchema, 'RunOptions');
export const RequestChangesBody = named(requestChangesSchema, 'RequestChangesBody');
export const ReviewCommentBody = named(reviewCommentInputSchema, 'ReviewCommentBody');

// ---- Answers ------------------------------------------------------------------------------------

export const isoDate = () => z.string().openapi({ format: 'date-time' });

export const HealthSchema: z.ZodType<Health> = z
  .object({
    status: z.literal('ok'),
    version: z.string(),
    database: z.enum(['pglite', 'postgres']),
  })
  .openapi('Health');

export const UserSchema: z.ZodType<User> = z
  .object({ id: z.uuid(), email: z.string(), createdAt: isoDate() })
  .openapi('User');
export const AuthResponseSchema = z.object({ user: UserSchema }).openapi('AuthResponse');
export const MeResponseSchema: z.ZodType<MeResponse> = z
  .object({ user: UserSchema.nullable() })
  .openapi('MeResponse');

export const ProjectSchema: z.ZodType<Project> = z
  .object({
    id: z.uuid(),
    name: z.string(),
    repoUrl: z.string().nullable(),
    defaultBranch: z.string(),
    checkCommand: z.string().nullable(),
    checkTimeoutSeconds: z.number().int(),
    setupCommand: z.string().nullable().openapi({
      description:
        'Run with sh -c in every new worktree before its first check, service or coder step (e.g. npm ci), its result cached by the lockfiles; null: none',
    }),
    setupTimeoutSeconds: z.number().int(),
    taskTokenBudget: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'Tokens (input + output, all runs) a task may spend; null: no budget' }),
    serviceEnv: z
      .record(z.string(), z.string())
      .openapi({ description: 'Environment variables of the project’s services' }),
    sandboxAllowedHosts: z.array(z.string()).nullable().openapi({
      description:
        'Hosts the project’s sandboxes may reach, within the operator’s AUTOCODER_SANDBOX_ALLOWED_HOSTS; null: the operator’s list; []: none',
    }),
    coderEngine: z.enum(CODER_ENGINES).openapi({
      description:
        'How the coder does its step: autocoder (a loop of tool calls on the worktree), one-shot (whole files in one answer), claude-code or codex (the person’s coding agent in the sandbox, GET /api/engines); a task may override it',
    }),
    maxToolCalls: z.number().int().openapi({ description: 'Tool calls one agent step may make' }),
    createdAt: isoDate(),
    updatedAt: isoDate(),
  })
  .openapi('Project');
export const ProjectListSchema = z.object({ projects: z.array(ProjectSchema) }).openapi('ProjectList');
export const ImportOptionsSchema: z.ZodType<ImportOptions> = z
  .object({ localImport: z.boolean() })
  .openapi('ImportOptions');
export const ProjectTreeSchema: z.ZodType<ProjectTree> = z
  .object({
    branch: z.string(),
    commit: z.string().nullable(),
    entries: z.array(z.object({ path: z.string(), size: z.number().int() })),
  })
  .openapi('ProjectTree');
export const ProjectFileSchema: z.ZodType<ProjectFile> = z
  .object({
    path: z.string(),
    size: z.number().int(),
    isText: z.boolean(),
    truncated: z.boolean(),
    content: z.string(),
  })
  .openapi('ProjectFile');

export const progress = z.object({ index: z.number().int(), total: z.number().int() });
const usageTotal = z.object({ inputTokens: z.number(), outputTokens: z.number(), costUsd: z.number() });

const ErrorDetailsSchema: z.ZodType<ErrorDetails> = z
  .object({
    type: z.enum(ERROR_TYPES),
    message: z.string(),
    statusCode: z.number().int().optional(),
    failedAgent: z.enum(AGENT_TYPES).optional(),
    failedPhase: z.enum(ACTIVE_PHASES).optional(),
    retryable: z.boolean(),
    retryCount: z.number().int(),
    maxRetries: z.number().int(),
    timestamp: z.number(),
  })
  .openapi('RunErrorDetails');

const runSummaryShape = {
  id: z.uuid(),
  taskId: z.uuid(),
  phase: z.enum(PIPELINE_PHASES),
  status: z.enum(PIPELINE_STATUSES),
  iteration: z.number().int(),
  provider: z.enum(PROVIDERS),
  simulated: z.boolean(),
  branch: z.string().nullable(),
  baseCommit: z.string().nullable(),
  headCommit: z.string().nullable(),
  mergeCommit: z.string().nullable(),
  revertCommit: z.string().nullable(),
  subtask: progress.nullable(),
  roundStart: z.number().int(),
  usage: usageTotal,
  earlierRunsUsage: usageTotal.openapi({
    description: 'What the task’s earlier runs spent (with `usage`: the task’s spend against its budget)',
  }),
  reviewScore: z.number().nullable(),
  errorDetails: ErrorDetailsSchema.nullable(),
  startedAt: isoDate(),
  completedAt: isoDate().nullable(),
};
export const RunSummarySchema: z.ZodType<PipelineRunSummary> = z
  .object(runSummaryShape)
  .openapi('PipelineRunSummary');

const AgentCallSchema: z.ZodType<AgentCallUsage> = z.object({
  agent: z.enum(AGENT_TYPES),
  model: z.string(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  costUsd: z.number(),
  durationMs: z.number(),
});
const reviewShape = z.object({
  passed: z.boolean(),
  score: z.number(),
  findings: z.array(
    z.object({
      severity: z.enum(FINDING_SEVERITIES),
      file: z.string(),
      line: z.number().int(),
      message: z.string(),
    }),
  ),
});
const runDetailShape = {
  ...runSummaryShape,
  subtasks: z.array(
    z.object({
      id: z.string(),
      title: z.string(),
      description: z.string(),
      order: z.number().int(),
      files: z.array(z.string()).optional(),
    }),
  ),
  fileChanges: z.object({
    files: z.array(
      z.object({
        filePath: z.string(),
        language: z.string(),
        content: z.string(),
        action: z.enum(FILE_ACTIONS),
      }),
    ),
  }),
  reviewFindings: reviewShape.nullable(),
  calls: z.array(AgentCallSchema),
  agentLogCounts: z.object({ planner: z.number(), coder: z.number(), reviewer: z.number() }),
};
export const RunDetailSchema: z.ZodType<PipelineRunDetail> = z
  .object(runDetailShape)
  .openapi('PipelineRunDetail');

/** GET /api/pipeline/:taskId/status: the latest run, or `{ status: 'none' }`. */
export const RunStatusSchema: z.ZodType<(PipelineRunDetail & { runId: string }) | { status: 'none' }> = z
  .union([z.object({ ...runDetailShape, runId: z.uuid() }), z.object({ status: z.literal('none') })])
  .openapi('PipelineStatus');

/**
 * Every event type a stream carries, checked against the contract: a type added to `PipelineEvent`
 * and not here (or the reverse) does not compile.
 */
const EVENT_TYPES: Record<PipelineEventType, true> = {
  'agent-log': true,
  'phase-change': true,
  'task-status': true,
  error: true,
  'pipeline-complete': true,
  usage: true,
  'run-update': true,
  'agent-tool-call': true,
  'agent-tool-result': true,
  timeout: true,
  'check-log': true,
  'check-result': true,
  'setup-log': true,
  'setup-result': true,
  'lock-wait': true,
  'run-step': true,
  'lock-taken': true,
  'lock-refused': true,
  'lock-released': true,
  'lock-expired': true,
  'head-moved': true,
};

/** An event as stored: its id is its sequence number in its stream; `data` depends on `type`. */
export const StoredEventSchema = z
  .object({
    id: z.number().int(),
    type: z.enum(Object.keys(EVENT_TYPES) as [PipelineEventType, ...PipelineEventType[]]),
    data: z.record(z.string(), z.unknown()),
  })
  .openapi('StoredEvent');
