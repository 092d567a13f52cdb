import { z } from '@hono/zod-openapi';
import {
  type AgentToken,
  type CheckStatusResponse,
  type CreatedAgentToken,
  checkStatusSchema,
  createTokenSchema,
  LOCK_STATUSES,
  MAX_ACTIVITY_PAGE,
  ORCHESTRATION_ACTIONS,
  type Orchestration,
  type PostStatusResponse,
  type ProjectActivityResponse,
  type ProjectLock,
  type ProjectLocksResponse,
  postStatusSchema,
} from '@/contracts/coordination.js';
import { diffFileContentSchema, runDiffSchema } from '@/contracts/diff.js';
import type { GraphResponse } from '@/contracts/graph.js';
import { named } from './schemas.js';

/* The declared shapes of the coordination, token, diff and graph routes (the review and coordination capabilities). */

// ---- Requests ---------------------------------------------------------------------------------------

export const CheckStatusBody = named(checkStatusSchema, 'CheckStatusBody');
export const PostStatusBody = named(postStatusSchema, 'PostStatusBody');
export const CreateTokenBody = named(createTokenSchema, 'CreateTokenBody');

// ---- Answers ----------------------------------------------------------------------------------------

export const RunDiffSchema = named(runDiffSchema, 'RunDiff');
export const DiffFileContentSchema = named(diffFileContentSchema, 'DiffFileContent');

const OrchestrationSchema: z.ZodType<Orchestration> = z
  .object({
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
  })
  .openapi('Orchestration', { description: 'What the agent must do next' });

const LockViewSchema = z
  .object({
    user: z.string(),
    user_name: z.string(),
    status: z.enum(LOCK_STATUSES),
    lock_type: z.enum(['DIRECT', 'NEIGHBOR']),
    message: z.string(),
    timestamp: z.number().openapi({ description: 'Seconds since the epoch' }),
  })
  .openapi('LockView');

export const CheckStatusResponseSchema: z.ZodType<CheckStatusResponse> = z
  .object({
    status: z.enum(['OK', 'STALE', 'CONFLICT', 'OFFLINE']),
    repo_head: z.string().nullable(),
    locks: z.record(z.string(), LockViewSchema),
    warnings: z.array(z.string()),
    orchestration: OrchestrationSchema,
  })
  .openapi('CheckStatusResponse');

export const PostStatusResponseSchema: z.ZodType<PostStatusResponse> = z
  .object({
    success: z.boolean(),
    repo_head: z.string().nullable(),
    orphaned_dependencies: z.array(z.string()),
    orchestration: OrchestrationSchema,
  })
  .openapi('PostStatusResponse');

export const AgentTokenSchema: z.ZodType<AgentToken> = z
  .object({ id: z.uuid(), name: z.string(), createdAt: z.string().openapi({ format: 'date-time' }) })
  .openapi('AgentToken');

export const CreatedAgentTokenSchema: z.ZodType<CreatedAgentToken> = z
  .object({
    id: z.uuid(),
    name: z.string(),
    token: z.string().openapi({ description: 'The secret: shown this once, never again' }),
  })
  .openapi('CreatedAgentToken');

export const GraphResponseSchema: z.ZodType<GraphResponse> = z
  .object({
    nodes: z.array(z.object({ id: z.string(), type: z.literal('file') })),
    edges: z.array(z.object({ source: z.string(), target: z.string(), type: z.literal('import') })),
    locks: z.record(
      z.string(),
      z.object({
        user: z.string(),
        user_name: z.string().optional(),
        status: z.enum(LOCK_STATUSES),
        message: z.string(),
      }),
    ),
    version: z.string().openapi({ description: 'The head commit of the branch' }),
    warnings: z.array(z.string()),
  })
  .openapi('GraphResponse');

const ProjectLockSchema: z.ZodType<ProjectLock> = z
  .object({
    path: z.string(),
    status: z.enum(LOCK_STATUSES),
    agent: z.object({ id: z.string(), name: z.string() }),
    message: z.string(),
    timestamp: z.number().openapi({ description: 'Seconds since the epoch' }),
    taskId: z.string().optional().openapi({ description: 'Set when a pipeline run holds the lock' }),
  })
  .openapi('ProjectLock');

export const ProjectLocksResponseSchema: z.ZodType<ProjectLocksResponse> = z
  .object({ branch: z.string(), locks: z.array(ProjectLockSchema) })
  .openapi('ProjectLocks');

export const ProjectActivityQuery = z.strictObject({
  before: z.coerce
    .number()
    .int()
    .min(1)
    .optional()
    .openapi({ description: 'Only events older than this event id (the SSE id); the newest without it' }),
  limit: z.coerce.number().int().min(1).max(MAX_ACTIVITY_PAGE).default(50),
});

const agentSchema = z.object({ id: z.string(), name: z.string() });
const lockActivityFields = {
  id: z.number().int().openapi({ description: 'The event’s id in the project’s stream (its SSE id)' }),
};
const activityData = z.object({
  branch: z.string(),
  agent: agentSchema,
  files: z.array(z.string()),
  status: z.enum([...LOCK_STATUSES, 'OPEN']),
  message: z.string(),
  timestamp: z.number().openapi({ description: 'Milliseconds since the epoch' }),
  taskId: z.string().optional().openapi({ description: 'Set when the agent is a pipeline run: its task' }),
});

const ProjectActivityEventSchema = z
  .discriminatedUnion('type', [
    z.object({ ...lockActivityFields, type: z.literal('lock-taken'), data: activityData }),
    z.object({
      ...lockActivityFields,
      type: z.literal('lock-refused'),
      data: activityData.extend({
        conflicts: z.array(z.string()),
        holder: z.string().openapi({ description: 'The id of the first holder in the way' }),
        holderName: z.string().optional(),
        holderTaskId: z
          .string()
          .optional()
          .openapi({ description: 'Set when the holder is one of the project’s pipeline runs: its task' }),
      }),
    }),
    z.object({ ...lockActivityFields, type: z.literal('lock-released'), data: activityData }),
    z.object({
      ...lockActivityFields,
      type: z.literal('lock-expired'),
      data: z.object({
        branch: z.string(),
        agent: agentSchema,
        files: z.array(z.string()),
        message: z.string(),
        timestamp: z.number(),
      }),
    }),
  ])
  .openapi('ProjectActivityEvent');

export const ProjectActivityResponseSchema: z.ZodType<ProjectActivityResponse> = z
  .object({ events: z.array(ProjectActivityEventSchema), hasMore: z.boolean() })
  .openapi('ProjectActivity');
