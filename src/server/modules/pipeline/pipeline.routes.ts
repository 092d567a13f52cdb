import type { Context } from 'hono';
import { CLAUDE_CODE_TOKEN_HEADER } from '@/contracts/engines.js';
import { apiRouter } from '@/server/openapi/route.js';
import type { EventLog } from '../events/event-log.js';
import type { Orchestrator } from './orchestrator.js';
import {
  addCommentRoute,
  approve,
  cancel,
  history,
  listCommentsRoute,
  removeCommentRoute,
  requestChanges,
  retry,
  revertRoute,
  runEventsRoute,
  start,
  status,
} from './pipeline-declared.routes.js';
import type { RequestSecrets } from './provider-resolution.js';
import { addComment, listComments, removeComment } from './review-comments.js';
import { runEvents, runHistory, runStatus } from './run-queries.js';

/** Keys come only in headers, are never stored, and are never echoed back. */
const secretsOf = (c: Context): RequestSecrets => ({
  anthropicKey: c.req.header('x-anthropic-key')?.trim() || undefined,
  openaiKey: c.req.header('x-openai-key')?.trim() || undefined,
  claudeCodeToken: c.req.header(CLAUDE_CODE_TOKEN_HEADER)?.trim() || undefined,
});

/** POST /api/tasks/:id/start-pipeline */
export function startPipelineRoute(orchestrator: Orchestrator) {
  return apiRouter().openapi(start, async (c) => {
    const { id } = c.req.valid('param');
    return c.json(await orchestrator.start(c.var.user.id, id, c.req.valid('json'), secretsOf(c)), 202);
  });
}

/**
 * /api/pipeline/…: a task's run status, cancel, retry, approve, revert, request changes, run
 * history, event replay, and comments on a run's lines.
 */
export function pipelineRoutes(orchestrator: Orchestrator, log: EventLog) {
  const reads = { db: log.db, events: log };
  return apiRouter()
    .openapi(runEventsRoute, async (c) => {
      const { after } = c.req.valid('query');
      return c.json(await runEvents(reads, c.var.user.id, c.req.valid('param').runId, after), 200);
    })
    .openapi(listCommentsRoute, async (c) =>
      c.json({ comments: await listComments(reads, c.var.user.id, c.req.valid('param').runId) }, 200),
    )
    .openapi(addCommentRoute, async (c) =>
      c.json(await addComment(reads, c.var.user.id, c.req.valid('param').runId, c.req.valid('json')), 201),
    )
    .openapi(removeCommentRoute, async (c) => {
      const { runId, commentId } = c.req.valid('param');
      await removeComment(reads, c.var.user.id, runId, commentId);
      return c.body(null, 204);
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
    .openapi(revertRoute, async (c) =>
      c.json(await orchestrator.revert(c.var.user.id, c.req.valid('param').taskId), 200),
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
