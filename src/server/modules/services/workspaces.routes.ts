import { z } from '@hono/zod-openapi';
import type { AppDeps } from '@/server/deps.js';
import { apiRoute, apiRouter, jsonResponse, uuidParam } from '@/server/openapi/route.js';
import { WorkspaceListSchema } from '@/server/openapi/schemas-services.js';
import { listWorkspaces } from './workspaces.js';

const list = apiRoute(
  {
    method: 'get',
    path: '/{id}/workspaces',
    operationId: 'listWorkspaces',
    tags: ['services'],
    summary: 'The project’s workspaces',
    description:
      'The project’s own checkout (its default branch) and each run’s worktree that exists now, each with a ULID that stays the same across restarts.',
    request: { params: z.object({ id: uuidParam('id', 'project') }) },
    responses: { 200: jsonResponse(WorkspaceListSchema, 'The workspaces services run in') },
  },
  { access: 'session', errors: ['PROJECT_NOT_FOUND'] },
);

/** GET /api/projects/:id/workspaces — the project's checkout and its runs' worktrees. */
export function workspaceRoutes(deps: AppDeps) {
  return apiRouter().openapi(list, async (c) =>
    c.json({ workspaces: await listWorkspaces(deps, c.var.user.id, c.req.valid('param').id) }, 200),
  );
}
