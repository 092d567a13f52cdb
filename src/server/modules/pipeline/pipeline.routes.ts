import { type Context, Hono } from 'hono';
import { z } from 'zod';
import { requestChangesSchema, runOptionsSchema } from '@/contracts/pipeline.js';
import type { AppEnv } from '@/server/deps.js';
import { readId, readJson, readQuery } from '@/server/lib/validate.js';
import type { EventLog } from '../events/event-log.js';
// biome-ignore lint/style/noRestrictedImports: until the run-lifecycle re-cut (helper `life`) reads a run's events through a module function
import { eventsOfRun } from '../events/events.repo.js';
import type { Orchestrator } from './orchestrator.js';
import type { RequestSecrets } from './provider-resolution.js';

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

/** /api/pipeline/…: a task's run status, cancel, retry, approve, request changes, run history and event replay. */
export function pipelineRoutes(orchestrator: Orchestrator, log: EventLog) {
  return new Hono<AppEnv>()
    .get('/runs/:runId/events', async (c) => {
      const run = await orchestrator.ownedRun(c.var.user.id, readId(c, 'runId', 'run'));
      const { after } = readQuery(c, afterQuery);
      await log.flush();
      return c.json({ runId: run.id, events: await eventsOfRun(log.db, run.id, after, 10_000) });
    })
    .get('/:taskId/status', async (c) =>
      c.json(await orchestrator.status(c.var.user.id, readId(c, 'taskId', 'task'))),
    )
    .get('/:taskId/runs', async (c) =>
      c.json({ runs: await orchestrator.history(c.var.user.id, readId(c, 'taskId', 'task')) }),
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
    .post('/:taskId/request-changes', async (c) => {
      const secrets = secretsOf(c);
      const input = await readJson(c, requestChangesSchema);
      return c.json(
        await orchestrator.requestChanges(c.var.user.id, readId(c, 'taskId', 'task'), input, secrets),
        202,
      );
    });
}
