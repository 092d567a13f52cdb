import { z } from '@hono/zod-openapi';
import type { AppDeps } from '@/server/deps.js';
import { requireAgent } from '@/server/http/middleware.js';
import {
  apiRoute,
  apiRouter,
  jsonRequest,
  jsonResponse,
  runningFirst,
  uuidParam,
} from '@/server/openapi/route.js';
import {
  CheckStatusBody,
  CheckStatusResponseSchema,
  PostStatusBody,
  PostStatusResponseSchema,
  ProjectActivityQuery,
  ProjectActivityResponseSchema,
  ProjectLocksResponseSchema,
} from '@/server/openapi/schemas-coordination.js';
import { checkStatus, postStatus } from './coordination.js';
import { projectActivity } from './project-activity.js';
import { projectLocks } from './project-locks.js';

const tags = ['coordination'];
// A branch the repository does not have yet is no error: the answer carries a BRANCH_NOT_FOUND warning.
const errors = ['REPO_NOT_FOUND'] as const;

const check = apiRoute(
  {
    method: 'post',
    path: '/check_status',
    operationId: 'checkStatus',
    tags,
    summary: 'Before editing: is the branch current, and who holds locks on these files?',
    request: { body: jsonRequest(CheckStatusBody) },
    responses: { 200: jsonResponse(CheckStatusResponseSchema, 'The files’ locks and what to do next') },
  },
  { access: 'agent', errors },
);

const post = apiRoute(
  {
    method: 'post',
    path: '/post_status',
    operationId: 'postStatus',
    tags,
    summary: 'Take (READING, WRITING) or release (OPEN) locks on files',
    request: { body: jsonRequest(PostStatusBody) },
    responses: {
      200: jsonResponse(PostStatusResponseSchema, 'Whether the locks were taken, and what to do next'),
    },
  },
  { access: 'agent', errors },
);

/** POST /api/check_status and /api/post_status (seed 003): for agents (bearer token) and signed-in users. */
export function coordinationRoutes(deps: AppDeps) {
  const agent = requireAgent(deps);
  return apiRouter()
    .openapi(runningFirst(check, agent), async (c) =>
      c.json(await checkStatus(deps, c.var.agent, c.req.valid('json')), 200),
    )
    .openapi(runningFirst(post, agent), async (c) =>
      c.json(await postStatus(deps, c.var.agent, c.req.valid('json')), 200),
    );
}

const locks = apiRoute(
  {
    method: 'get',
    path: '/{projectId}/locks',
    operationId: 'listProjectLocks',
    tags,
    summary: 'The live locks on the project’s default branch (the board’s lock badges start from them)',
    request: { params: z.object({ projectId: uuidParam('projectId', 'project') }) },
    responses: { 200: jsonResponse(ProjectLocksResponseSchema, 'Who holds which file, and why') },
  },
  { access: 'session', errors: ['PROJECT_NOT_FOUND'] },
);

const activity = apiRoute(
  {
    method: 'get',
    path: '/{projectId}/activity',
    operationId: 'listProjectActivity',
    tags,
    summary:
      'The project’s coordination events, newest first (the board’s Activity feed pages back through them)',
    request: {
      params: z.object({ projectId: uuidParam('projectId', 'project') }),
      query: ProjectActivityQuery,
    },
    responses: {
      200: jsonResponse(
        ProjectActivityResponseSchema,
        'Up to `limit` lock events older than `before`, newest first; `hasMore` when older ones remain',
      ),
    },
  },
  { access: 'session', errors: ['PROJECT_NOT_FOUND'] },
);

/**
 * GET /api/projects/:projectId/locks (the live locks the board starts its lock badges from) and
 * …/activity (the feed's history), for a session.
 */
export function projectLocksRoutes(deps: AppDeps) {
  return apiRouter()
    .openapi(locks, async (c) =>
      c.json(await projectLocks(deps, c.var.user.id, c.req.valid('param').projectId), 200),
    )
    .openapi(activity, async (c) =>
      c.json(
        await projectActivity(deps, c.var.user.id, c.req.valid('param').projectId, c.req.valid('query')),
        200,
      ),
    );
}
