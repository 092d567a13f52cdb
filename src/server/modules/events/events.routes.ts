import type { HttpBindings } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import type { AppDeps, AppEnv } from '@/server/deps.js';
import { readId } from '@/server/lib/validate.js';
import { getOwnedProject } from '../projects/projects.js';
import { getOwnedTask } from '../tasks/tasks.js';
import { projectStream, taskStream } from './bus.js';
import type { EventLog } from './event-log.js';
import { lastEventIdOf, pumpEvents, type SseSettings } from './sse.js';
import type { SseHub } from './sse-hub.js';
import { SseStream } from './sse-stream.js';

export interface SseDeps {
  log: EventLog;
  hub: SseHub;
  settings: SseSettings;
  shutdown: AbortSignal;
  /**
   * Where a task stream's replay starts for a client that has seen nothing (the id after which it
   * is sent events). The pipeline knows which run is the latest; it is handed in by the app so
   * that events never import the pipeline.
   */
  replayStart: (taskId: string) => Promise<number>;
}

const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

/**
 * GET /api/sse/:taskId — a task's pipeline events, every type on one stream. A client with
 * Last-Event-ID gets what it missed; a new client (a page load) gets the latest run
 * from its first event, then live events.
 * GET /api/sse/projects/:projectId — task moves and run summaries for the board.
 */
export function sseRoutes(deps: AppDeps, sse: SseDeps) {
  /** Opens the stream, registers it with the hub and answers with its body. */
  const serve = (c: Context<AppEnv>, stream: string, afterSeq: number) => {
    // On the Node server the socket itself can be cut when a stalled client must go.
    const outgoing = (c.env as Partial<HttpBindings> | undefined)?.outgoing;
    const out = new SseStream({
      maxQueueBytes: sse.settings.maxQueueBytes,
      ...(outgoing ? { destroy: () => outgoing.destroy() } : {}),
    });
    sse.hub.add(out, c.var.user.id, c.var.sessionId);
    pumpEvents(out, { ...sse, stream, afterSeq, now: deps.now }).catch((error: unknown) => {
      deps.logger.error('event stream failed', { stream, error });
      out.end('error');
    });
    return new Response(out.body, { status: 200, headers: SSE_HEADERS });
  };

  return new Hono<AppEnv>()
    .get('/projects/:projectId', async (c) => {
      const project = await getOwnedProject(deps, c.var.user.id, readId(c, 'projectId', 'project'));
      const stream = projectStream(project.id);
      const after =
        lastEventIdOf(c.req.header('last-event-id'), c.req.query('lastEventId')) ??
        (await sse.log.lastSeq(stream));
      return serve(c, stream, after);
    })
    .get('/:taskId', async (c) => {
      const task = await getOwnedTask(deps, c.var.user.id, readId(c, 'taskId', 'task'));
      const stream = taskStream(task.id);
      const after =
        lastEventIdOf(c.req.header('last-event-id'), c.req.query('lastEventId')) ??
        (await sse.replayStart(task.id));
      return serve(c, stream, after);
    });
}
