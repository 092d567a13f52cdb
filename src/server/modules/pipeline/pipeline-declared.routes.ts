import { z } from '@hono/zod-openapi';
import type {
  ApproveResponse,
  RequestChangesResponse,
  RetryResponse,
  RevertResponse,
} from '@/contracts/pipeline.js';
import { apiRoute, jsonRequest, jsonResponse, noContent, uuidParam } from '@/server/openapi/route.js';
import {
  RequestChangesBody,
  ReviewCommentBody,
  RunOptionsBody,
  RunStatusSchema,
  RunSummarySchema,
  StoredEventSchema,
} from '@/server/openapi/schemas.js';

/* The pipeline routes, declared with their contracts (pipeline.routes.ts serves them). */

/** Documented (the keys' only way in), read by `secretsOf`. */
export const keyHeaders = z.object({
  'x-anthropic-key': z
    .string()
    .optional()
    .openapi({ description: 'Anthropic API key for this run (never stored)' }),
  'x-openai-key': z
    .string()
    .optional()
    .openapi({ description: 'OpenAI-compatible key for this run (never stored)' }),
  'x-claude-code-oauth-token': z.string().optional().openapi({
    description:
      'Claude Code OAuth token (`claude setup-token`) for the claude-code coder engine, used in place of the Anthropic key (never stored)',
  }),
});

const tags = ['pipeline'];
const session = 'session' as const;
const taskParams = z.object({ taskId: uuidParam('taskId', 'task') });
const accepted = z.object({ runId: z.uuid() }).openapi('RunAccepted');

/* Answers typed against the contracts the web app reads them with. */
const RetryResponseSchema: z.ZodType<RetryResponse> = z
  .object({ runId: z.uuid(), retryCount: z.number().int(), delayMs: z.number().int() })
  .openapi('RetryAccepted');
const ApproveResponseSchema: z.ZodType<ApproveResponse> = z
  .object({
    status: z.literal('done'),
    mergeCommit: z.string().nullable(),
    fastForward: z.boolean(),
    branch: z.string().nullable(),
  })
  .openapi('Approved');
const RevertResponseSchema: z.ZodType<RevertResponse> = z
  .object({ status: z.literal('review'), revertCommit: z.string().nullable(), branch: z.string().nullable() })
  .openapi('Reverted');
const RequestChangesResponseSchema: z.ZodType<RequestChangesResponse> = z
  .object({
    runId: z.uuid(),
    iteration: z.number().int(),
    comments: z.number().int().openapi({ description: 'Open line comments sent to the coder' }),
    conflicts: z
      .array(z.string())
      .openapi({ description: 'Files of the default branch that conflict; the coder resolves them' }),
  })
  .openapi('ChangesRequested');
export const runParams = z.object({ runId: uuidParam('runId', 'run') });
/** What every route that sets a run going may refuse with. */
const RUN_START_ERRORS = [
  'TASK_NOT_FOUND',
  'INVALID_PIPELINE_STATE',
  'INVALID_API_KEY',
  'ADDRESS_NOT_ALLOWED',
  'TOO_MANY_PIPELINES',
  'ENGINE_UNAVAILABLE',
] as const;

export const start = apiRoute(
  {
    method: 'post',
    path: '/{id}/start-pipeline',
    operationId: 'startPipeline',
    tags,
    summary: 'Start the pipeline on a task',
    description:
      'Records the run, moves the task to Spec and answers; the run begins in the background. Its progress comes on GET /api/sse/{taskId}.',
    request: {
      params: z.object({ id: uuidParam('id', 'task') }),
      headers: keyHeaders,
      body: jsonRequest(RunOptionsBody),
    },
    responses: { 202: jsonResponse(accepted, 'The run is recorded and will begin') },
  },
  {
    access: session,
    errors: [...RUN_START_ERRORS, 'PIPELINE_ACTIVE'],
  },
);

export const runEventsRoute = apiRoute(
  {
    method: 'get',
    path: '/runs/{runId}/events',
    operationId: 'listRunEvents',
    tags,
    summary: 'A run’s stored events',
    request: {
      params: runParams,
      query: z.strictObject({ after: z.coerce.number().int().min(0).default(0) }),
    },
    responses: {
      200: jsonResponse(
        z.object({ runId: z.uuid(), events: z.array(StoredEventSchema) }).openapi('RunEvents'),
        'Up to 10,000 events after `after`, in order',
      ),
    },
  },
  { access: session, errors: ['RUN_NOT_FOUND'] },
);

export const status = apiRoute(
  {
    method: 'get',
    path: '/{taskId}/status',
    operationId: 'getPipelineStatus',
    tags,
    summary: 'The task’s latest run, in detail',
    request: { params: taskParams },
    responses: { 200: jsonResponse(RunStatusSchema, 'The latest run, or `{ status: "none" }`') },
  },
  { access: session, errors: ['TASK_NOT_FOUND'] },
);

export const history = apiRoute(
  {
    method: 'get',
    path: '/{taskId}/runs',
    operationId: 'listRuns',
    tags,
    summary: 'Every run of the task',
    request: { params: taskParams },
    responses: { 200: jsonResponse(z.object({ runs: z.array(RunSummarySchema) }), 'The runs, newest first') },
  },
  { access: session, errors: ['TASK_NOT_FOUND'] },
);

export const retry = apiRoute(
  {
    method: 'post',
    path: '/{taskId}/retry',
    operationId: 'retryRun',
    tags,
    summary: 'Retry a paused run',
    description:
      'Resumes at the failed phase and agent after a backoff; a run its token budget paused resumes at once, once the budget covers its next call (409 BUDGET_EXCEEDED otherwise).',
    request: { params: taskParams, headers: keyHeaders, body: jsonRequest(RunOptionsBody) },
    responses: {
      202: jsonResponse(RetryResponseSchema, 'The retry is scheduled'),
    },
  },
  {
    access: session,
    errors: [...RUN_START_ERRORS, 'BUDGET_EXCEEDED'],
  },
);

export const cancel = apiRoute(
  {
    method: 'post',
    path: '/{taskId}/cancel',
    operationId: 'cancelRun',
    tags,
    summary: 'Cancel the active run',
    request: { params: taskParams },
    responses: { 200: jsonResponse(z.object({ status: z.literal('cancelled') }), 'Cancelled') },
  },
  { access: session, errors: ['TASK_NOT_FOUND', 'INVALID_PIPELINE_STATE'] },
);

export const approve = apiRoute(
  {
    method: 'post',
    path: '/{taskId}/approve',
    operationId: 'approveRun',
    tags,
    summary: 'Approve the reviewed run: merge its branch',
    request: { params: taskParams },
    responses: {
      200: jsonResponse(ApproveResponseSchema, 'Merged into the default branch; the task is done'),
    },
  },
  // NOT_FOUND: the run's branch, or the default branch, no longer exists.
  { access: session, errors: ['TASK_NOT_FOUND', 'INVALID_PIPELINE_STATE', 'MERGE_CONFLICT', 'NOT_FOUND'] },
);

export const requestChanges = apiRoute(
  {
    method: 'post',
    path: '/{taskId}/request-changes',
    operationId: 'requestChanges',
    tags,
    summary: 'Send the reviewed run back to the coder',
    description: 'The feedback goes to the coder; the result is reviewed again.',
    request: { params: taskParams, headers: keyHeaders, body: jsonRequest(RequestChangesBody) },
    responses: {
      202: jsonResponse(RequestChangesResponseSchema, 'The run resumes'),
    },
  },
  // No PIPELINE_ACTIVE: the run it reopens is the task's latest, so one already active is 400 INVALID_PIPELINE_STATE.
  { access: session, errors: RUN_START_ERRORS },
);

const ReviewCommentSchema = z
  .object({
    id: z.uuid(),
    path: z.string(),
    line: z.number().int(),
    body: z.string(),
    createdAt: z.string().openapi({ format: 'date-time' }),
    addressedAt: z.string().nullable().openapi({
      format: 'date-time',
      description: 'When a request for changes sent it to the coder; null while open',
    }),
  })
  .openapi('ReviewComment');

export const listCommentsRoute = apiRoute(
  {
    method: 'get',
    path: '/runs/{runId}/comments',
    operationId: 'listReviewComments',
    tags,
    summary: 'The comments on a run’s lines',
    request: { params: runParams },
    responses: {
      200: jsonResponse(z.object({ comments: z.array(ReviewCommentSchema) }), 'The comments, oldest first'),
    },
  },
  { access: session, errors: ['RUN_NOT_FOUND'] },
);

export const addCommentRoute = apiRoute(
  {
    method: 'post',
    path: '/runs/{runId}/comments',
    operationId: 'addReviewComment',
    tags,
    summary: 'Comment on a line of one of the run’s files',
    description: 'The next Request Changes sends the open comments to the coder and marks them addressed.',
    request: { params: runParams, body: jsonRequest(ReviewCommentBody) },
    responses: { 201: jsonResponse(ReviewCommentSchema, 'The comment') },
  },
  { access: session, errors: ['RUN_NOT_FOUND', 'INVALID_PATH'] },
);

export const removeCommentRoute = apiRoute(
  {
    method: 'delete',
    path: '/runs/{runId}/comments/{commentId}',
    operationId: 'deleteReviewComment',
    tags,
    summary: 'Delete a comment',
    request: {
      params: z.object({ runId: uuidParam('runId', 'run'), commentId: uuidParam('commentId', 'comment') }),
    },
    responses: { 204: noContent },
  },
  { access: session, errors: ['RUN_NOT_FOUND', 'NOT_FOUND'] },
);

export const revertRoute = apiRoute(
  {
    method: 'post',
    path: '/{taskId}/revert',
    operationId: 'revertApproval',
    tags,
    summary: 'Take back the task’s last approval with a revert commit',
    description: 'The task goes back to Review; a revert that conflicts answers 409 with the files.',
    request: { params: taskParams },
    responses: {
      200: jsonResponse(RevertResponseSchema, 'Reverted on the default branch; the task is in Review'),
    },
  },
  { access: session, errors: ['TASK_NOT_FOUND', 'INVALID_PIPELINE_STATE', 'MERGE_CONFLICT', 'NOT_FOUND'] },
);
