import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { AppDeps, AppEnv } from '../../deps.js';
import { readId } from '../../lib/validate.js';
import { latestRunOfTask } from '../pipeline/runs.repo.js';
import { getOwnedProject } from '../projects/projects.js';
import { getOwnedTask } from '../tasks/tasks.js';
import { projectStream, taskStream } from './bus.js';
import type { EventLog } from './event-log.js';
import { firstSeqOfRun } from './events.repo.js';
import { lastEventIdOf, pumpEvents, type SseSettings } from './sse.js';

export interface SseDeps {
  log: EventLog;
  settings: SseSettings;
  shutdown: AbortSignal;
}

const SSE_HEADERS = {
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

/**
 * GET /api/sse/:taskId — a task's pipeline events (seed 004 step 12). A client with
 * Last-Event-ID gets what it missed; a new client (a page load) gets the latest run
 * from its first event, then live events.
 * GET /api/sse/projects/:projectId — task moves and run summaries for the board.
 */
export function sseRoutes(deps: AppDeps, sse: SseDeps) {
  return new Hono<AppEnv>()
    .get('/projects/:projectId', async (c) => {
      const project = await getOwnedProject(deps, c.var.user.id, readId(c, 'projectId', 'project'));
      const stream = projectStream(project.id);
      const after =
        lastEventIdOf(c.req.header('last-event-id'), c.req.query('lastEventId')) ??
        (await sse.log.lastSeq(stream));
      c.header('X-Accel-Buffering', 'no');
      return streamSSE(c, (api) => pumpEvents(api, { ...sse, stream, afterSeq: after, now: deps.now }));
    })
    .get('/:taskId', async (c) => {
      const task = await getOwnedTask(deps, c.var.user.id, readId(c, 'taskId', 'task'));
      const stream = taskStream(task.id);
      let after = lastEventIdOf(c.req.header('last-event-id'), c.req.query('lastEventId'));
      if (after === null) {
        await sse.log.flush();
        const run = await latestRunOfTask(deps.db, task.id);
        const first = run ? await firstSeqOfRun(deps.db, stream, run.id) : null;
        after = first !== null ? first - 1 : await sse.log.lastSeq(stream);
      }
      for (const [key, value] of Object.entries(SSE_HEADERS)) c.header(key, value);
      const afterSeq = after;
      return streamSSE(c, (api) => pumpEvents(api, { ...sse, stream, afterSeq, now: deps.now }));
    });
}
