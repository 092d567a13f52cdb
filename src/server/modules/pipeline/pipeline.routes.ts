import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { apiRoute, apiRouter, jsonRequest, jsonResponse, uuidParam } from '@/server/openapi/route.js';
import {
  RequestChangesBody,
  RunOptionsBody,
  RunStatusSchema,
  RunSummarySchema,
  StoredEventSchema,
} from '@/server/openapi/schemas.js';
import type { EventLog } from '../events/event-log.js';
import type { Orchestrator } from './orchestrator.js';
import type { RequestSecrets } from './provider-resolution.js';
import { runEvents, runHistory, runStatus } from './run-queries.js';

/** Keys come only in headers, are never stored, and are never echoed back. */
const secretsOf = (c: Context): RequestSecrets => ({
  anthropicKey: c.req.header('x-anthropic-key')?.trim() || undefined,
  openaiKey: c.req.header('x-openai-key')?.trim() || undefined,
});

/** Documented (the keys' only way in), read by `secretsOf`. */
const keyHeaders = z.object({
  'x-anthropic-key': z
    .string()
    .optional()
    .openapi({ description: 'Anthropic API key for this run (never stored)' }),
  'x-openai-key': z
    .string()
    .optional()
    .openapi({ description: 'OpenAI-compatible key for this run (never stored)' }),
});

const tags = ['pipeline'];
const session = 'session' as const;
const taskParams = z.object({ taskId: uuidParam('taskId', 'task') });
const accepted = z.object({ runId: z.uuid() }).openapi('RunAccepted');

const start = apiRoute(
  {
    method: 'post',
    path: '/{id}/start-pipeline',
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
    errors: [
      'TASK_NOT_FOUND',
      'INVALID_PIPELINE_STATE',
      'INVALID_API_KEY',
      'ADDRESS_NOT_ALLOWED',
      'PIPELINE_ACTIVE',
      'TOO_MANY_PIPELINES',
    ],
  },
);

const runEventsRoute = apiRoute(
  {
    method: 'get',
    path: '/runs/{runId}/events',
    tags,
    summary: 'A run’s stored events',
    request: {
      params: z.object({ runId: uuidParam('runId', 'run') }),
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

const status = apiRoute(
  {
    method: 'get',
    path: '/{taskId}/status',
    tags,
    summary: 'The task’s latest run, in detail',
    request: { params: taskParams },
    responses: { 200: jsonResponse(RunStatusSchema, 'The latest run, or `{ status: "none" }`') },
  },
  { access: session, errors: ['TASK_NOT_FOUND'] },
);

const history = apiRoute(
  {
    method: 'get',
    path: '/{taskId}/runs',
    tags,
    summary: 'Every run of the task',
    request: { params: taskParams },
    responses: { 200: jsonResponse(z.object({ runs: z.array(RunSummarySchema) }), 'The runs, newest first') },
  },
  { access: session, errors: ['TASK_NOT_FOUND'] },
);

const retry = apiRoute(
  {
    method: 'post',
    path: '/{taskId}/retry',
    tags,
    summary: 'Retry a paused run',
    description: 'Resumes at the failed phase and agent after a backoff.',
    request: { params: taskParams, headers: keyHeaders, body: jsonRequest(RunOptionsBody) },
    responses: {
      202: jsonResponse(
        z.object({ runId: z.uuid(), retryCount: z.number().int(), delayMs: z.number().int() }),
        'The retry is scheduled',
      ),
    },
  },
  {
    access: session,
    errors: [
      'TASK_NOT_FOUND',
      'INVALID_PIPELINE_STATE',
      'INVALID_API_KEY',
      'ADDRESS_NOT_ALLOWED',
      'TOO_MANY_PIPELINES',
    ],
  },
);

const cancel = apiRoute(
  {
    method: 'post',
    path: '/{taskId}/cancel',
    tags,
    summary: 'Cancel the active run',
    request: { params: taskParams },
    responses: { 200: jsonResponse(z.object({ status: z.literal('cancelled') }), 'Cancelled') },
  },
  { access: session, errors: ['TASK_NOT_FOUND', 'INVALID_PIPELINE_STATE'] },
);

const approve = apiRoute(
  {
    method: 'post',
    path: '/{taskId}/approve',
    tags,
    summary: 'Approve the reviewed run: merge its branch',
    request: { params: taskParams },
    responses: {
      200: jsonResponse(
        z.object({
          status: z.literal('done'),
          mergeCommit: z.string().nullable(),
          branch: z.string().nullable(),
        }),
        'Merged into the default branch; the task is done',
      ),
    },
  },
  { access: session, errors: ['TASK_NOT_FOUND', 'INVALID_PIPELINE_STATE', 'MERGE_CONFLICT'] },
);

const requestChanges = apiRoute(
  {
    method: 'post',
    path: '/{taskId}/request-changes',
    tags,
    summary: 'Send the reviewed run back to the coder',
    description: 'The feedback goes to the coder; the result is reviewed again.',
    request: { params: taskParams, headers: keyHeaders, body: jsonRequest(RequestChangesBody) },
    responses: {
      202: jsonResponse(z.object({ runId: z.uuid(), iteration: z.number().int() }), 'The run resumes'),
    },
  },
  {
    access: session,
    errors: [
      'TASK_NOT_FOUND',
      'INVALID_PIPELINE_STATE',
      'INVALID_API_KEY',
      'ADDRESS_NOT_ALLOWED',
      'PIPELINE_ACTIVE',
      'TOO_MANY_PIPELINES',
    ],
  },
);

/** POST /api/tasks/:id/start-pipeline */
export function startPipelineRoute(orchestrator: Orchestrator) {
  return apiRouter().openapi(start, async (c) => {
    const { id } = c.req.valid('param');
    return c.json(await orchestrator.start(c.var.user.id, id, c.req.valid('json'), secretsOf(c)), 202);
  });
}

/** /api/pipeline/…: a task's run status, cancel, retry, approve, request changes, run history and event replay. */
export function pipelineRoutes(orchestrator: Orchestrator, log: EventLog) {
  const reads = { db: log.db, events: log };
  return apiRouter()
    .openapi(runEventsRoute, async (c) => {
      const { after } = c.req.valid('query');
      return c.json(await runEvents(reads, c.var.user.id, c.req.valid('param').runId, after), 200);
    })
    .openapi(status, async (c) =>
      c.json(await runStatus(reads, c.var.user.id, c.req.valid('param').taskId), 200),
    )
    .openapi(history, async (c) =>
      c.json({ runs: await runHistory(reads, c.var.user.id, c.req.valid('param').taskId) }, 200),
    )
    .openapi(retry, async (c) =>
      c.json(
        await orchestrator.retry(
          c.var.user.id,
          c.req.valid('param').taskId,
          c.req.valid('json'),
          secretsOf(c),
        ),
        202,
      ),
    )
    .openapi(cancel, async (c) =>
      c.json(await orchestrator.cancel(c.var.user.id, c.req.valid('param').taskId), 200),
    )
    .openapi(approve, async (c) =>
      c.json(await orchestrator.approve(c.var.user.id, c.req.valid('param').taskId), 200),
    )
    .openapi(requestChanges, async (c) =>
      c.json(
        await orchestrator.requestChanges(
          c.var.user.id,
          c.req.valid('param').taskId,
          c.req.valid('json'),
          secretsOf(c),
        ),
        202,
      ),
    );
}
