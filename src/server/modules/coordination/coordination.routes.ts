import { Hono } from 'hono';
import { checkStatusSchema, postStatusSchema } from '@/contracts/coordination.js';
import type { AppDeps, AppEnv } from '@/server/deps.js';
import { requireAgent } from '@/server/http/middleware.js';
import { readId, readJson } from '@/server/lib/validate.js';
import { checkStatus, postStatus } from './coordination.js';
import { projectLocks } from './project-locks.js';

/** POST /api/check_status and /api/post_status (seed 003): for agents (bearer token) and signed-in users. */
export function coordinationRoutes(deps: AppDeps) {
  const agent = requireAgent(deps);
  return new Hono<AppEnv>()
    .post('/check_status', agent, async (c) =>
      c.json(await checkStatus(deps, c.var.agent, await readJson(c, checkStatusSchema))),
    )
    .post('/post_status', agent, async (c) =>
      c.json(await postStatus(deps, c.var.agent, await readJson(c, postStatusSchema))),
    );
}

/** GET /api/projects/:projectId/locks: the live locks the board starts its lock badges from (a session). */
export function projectLocksRoutes(deps: AppDeps) {
  return new Hono<AppEnv>().get('/:projectId/locks', async (c) =>
    c.json(await projectLocks(deps, c.var.user.id, readId(c, 'projectId', 'project'))),
  );
}
