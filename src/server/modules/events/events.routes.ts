import type { HttpBindings } from '@hono/node-server';
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppDeps, AppEnv } from '@/server/deps.js';
import { apiRoute, apiRouter, uuidParam } from '@/server/openapi/route.js';
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

const tags = ['events'];

/** Where to resume: the header a browser's EventSource sends on reconnect, or the query fallback. */
const resume = {
  headers: z.object({
    'last-event-id': z
      .string()
      .optional()
      .openapi({ description: 'The id of the last event received: the stream resumes after it' }),
  }),
  query: z.object({
    lastEventId: z
      .string()
      .optional()
      .openapi({ description: 'Same as the Last-Event-ID header, for a first connection' }),
  }),
};

const eventStream = (description: string) => ({
  200: {
    description,
    content: {
      'text/event-stream': {
        schema: z.string().openapi({
          description: 'Server-sent events: `id: <seq>`, `event: <type>`, `data: <JSON>`',
        }),
      },
    },
  },
});

const projectEvents = apiRoute(
  {
    method: 'get',
    path: '/projects/{projectId}',
    operationId: 'streamProjectEvents',
    tags,
    summary: 'A project’s board events',
    description:
      'Task moves (`task-status`) and run summaries (`run-update`), live from now or after Last-Event-ID.',
    request: { params: z.object({ projectId: uuidParam('projectId', 'project') }), ...resume },
    responses: eventStream('The project stream'),
  },
  { access: 'session', errors: ['PROJECT_NOT_FOUND'] },
);

const taskEvents = apiRoute(
  {
    method: 'get',
    path: '/{taskId}',
    operationId: 'streamTaskEvents',
    tags,
    summary: 'A task’s pipeline events',
    description:
      'A client with Last-Event-ID gets what it missed; a new client gets the latest run from its first event, then live events.',
    request: { params: z.object({ taskId: uuidParam('taskId', 'task') }), ...resume },
    responses: eventStream('The task stream'),
  },
  { access: 'session', errors: ['TASK_NOT_FOUND'] },
);

/**
 * GET /api/sse/:taskId — a task's pipeline events, every type on one stream. A client with
 * Last-Event-ID gets what it missed; a new client (a page load) gets the latest run
 * from its first event, then live events.
 * GET /api/sse/projects/:projectId — task moves and run summaries for the board.
 */
export function sseRoutes(deps: AppDeps, sse: SseDeps) {
  /** Opens the stream, registers it with the hub and answers with its body. */
  const serve = (c: Context<AppEnv>, stream: string, afterSeq: number) => {
    // On the Node server frames go to the response directly, and a stalled client's socket can be cut.
    const outgoing = (c.env as Partial<HttpBindings> | undefined)?.outgoing;
    const out = new SseStream({
      maxQueueBytes: sse.settings.maxQueueBytes,
      outgoing,
    });
    sse.hub.add(out, c.var.user.id, c.var.sessionId);
    pumpEvents(out, { ...sse, stream, afterSeq, now: deps.now }).catch((error: unknown) => {
      deps.logger.error('event stream failed', { stream, error });
      out.end('error');
    });
    return new Response(out.body, { status: 200, headers: SSE_HEADERS });
  };

  return apiRouter()
    .openapi(projectEvents, async (c) => {
      const project = await getOwnedProject(deps, c.var.user.id, c.req.valid('param').projectId);
      const stream = projectStream(project.id);
      const after =
        lastEventIdOf(c.req.valid('header')['last-event-id'], c.req.valid('query').lastEventId) ??
        (await sse.log.lastSeq(stream));
      return serve(c, stream, after);
    })
    .openapi(taskEvents, async (c) => {
      const task = await getOwnedTask(deps, c.var.user.id, c.req.valid('param').taskId);
      const stream = taskStream(task.id);
      const after =
        lastEventIdOf(c.req.valid('header')['last-event-id'], c.req.valid('query').lastEventId) ??
        (await sse.replayStart(task.id));
      return serve(c, stream, after);
    });
}
