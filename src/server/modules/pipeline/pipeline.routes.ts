import { type Context, Hono } from 'hono';
import { z } from 'zod';
import { requestChangesSchema, runOptionsSchema } from '@/contracts/pipeline.js';
import { reviewCommentInputSchema } from '@/contracts/review-comments.js';
import type { AppEnv } from '@/server/deps.js';
import { readId, readJson, readQuery } from '@/server/lib/validate.js';
import type { EventLog } from '../events/event-log.js';
import type { Orchestrator } from './orchestrator.js';
import type { RequestSecrets } from './provider-resolution.js';
import { addComment, listComments, removeComment } from './review-comments.js';
import { runEvents, runHistory, runStatus } from './run-queries.js';

/** Keys come only in headers, are never stored, and are never echoed back. */
const secretsOf = (c: Context): RequestSecrets => ({
  anthropicKey: c.req.header('x-anthropic-key')?.trim() || undefined,
  openaiKey: c.req.header('x-openai-key')?.trim() || undefined,
});

const afterQuery = z.strictObject({ after: z.coerce.number().int().min(0).default(0) });

/** POST /api/tasks/:id/start-pipeline */
export function startPipelineRoute(orchestrator: Orchestrator) {
  return new Hono<AppEnv>().post('/:id/start-pipeline', async (c) => {
    const secrets = secretsOf(c);
    const options = await readJson(c, runOptionsSchema);
    const taskId = readId(c, 'id', 'task');
    return c.json(await orchestrator.start(c.var.user.id, taskId, options, secrets), 202);
  });
}

/**
 * /api/pipeline/…: a task's run status, cancel, retry, approve, revert, request changes, run
 * history, event replay, and comments on a run's lines.
 */
export function pipelineRoutes(orchestrator: Orchestrator, log: EventLog) {
  const reads = { db: log.db, events: log };
  return new Hono<AppEnv>()
    .get('/runs/:runId/events', async (c) => {
      const { after } = readQuery(c, afterQuery);
      return c.json(await runEvents(reads, c.var.user.id, readId(c, 'runId', 'run'), after));
    })
    .get('/runs/:runId/comments', async (c) =>
      c.json({ comments: await listComments(reads, c.var.user.id, readId(c, 'runId', 'run')) }),
    )
    .post('/runs/:runId/comments', async (c) => {
      const input = await readJson(c, reviewCommentInputSchema);
      const comment = await addComment(reads, c.var.user.id, readId(c, 'runId', 'run'), input);
      return c.json(comment, 201);
    })
    .delete('/runs/:runId/comments/:commentId', async (c) => {
      const runId = readId(c, 'runId', 'run');
      await removeComment(reads, c.var.user.id, runId, readId(c, 'commentId', 'comment'));
      return c.body(null, 204);
    })
    .get('/:taskId/status', async (c) =>
      c.json(await runStatus(reads, c.var.user.id, readId(c, 'taskId', 'task'))),
    )
    .get('/:taskId/runs', async (c) =>
      c.json({ runs: await runHistory(reads, c.var.user.id, readId(c, 'taskId', 'task')) }),
    )
    .post('/:taskId/retry', async (c) => {
      const secrets = secretsOf(c);
      const options = await readJson(c, runOptionsSchema);
      return c.json(
        await orchestrator.retry(c.var.user.id, readId(c, 'taskId', 'task'), options, secrets),
        202,
      );
    })
    .post('/:taskId/cancel', async (c) =>
      c.json(await orchestrator.cancel(c.var.user.id, readId(c, 'taskId', 'task'))),
    )
    .post('/:taskId/approve', async (c) =>
      c.json(await orchestrator.approve(c.var.user.id, readId(c, 'taskId', 'task'))),
    )
    .post('/:taskId/revert', async (c) =>
      c.json(await orchestrator.revert(c.var.user.id, readId(c, 'taskId', 'task'))),
    )
    .post('/:taskId/request-changes', async (c) => {
      const secrets = secretsOf(c);
      const input = await readJson(c, requestChangesSchema);
      return c.json(
        await orchestrator.requestChanges(c.var.user.id, readId(c, 'taskId', 'task'), input, secrets),
        202,
      );
    });
}
