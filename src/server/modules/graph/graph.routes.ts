import { graphQuerySchema } from '@/contracts/graph.js';
import type { AppDeps } from '@/server/deps.js';
import { apiRoute, apiRouter, jsonResponse } from '@/server/openapi/route.js';
import { GraphResponseSchema } from '@/server/openapi/schemas-coordination.js';
import { resolveProjectByRepoUrl } from '../projects/projects.js';
import { graphView, type LocksFor, noLocks } from './graph-view.js';

const graph = apiRoute(
  {
    method: 'get',
    path: '/',
    operationId: 'getImportGraph',
    tags: ['graph'],
    summary: 'The import graph of a branch head, its files’ locks overlaid',
    request: { query: graphQuerySchema },
    responses: { 200: jsonResponse(GraphResponseSchema, 'Files, imports and locks') },
  },
  { access: 'session', errors: ['REPO_NOT_FOUND', 'BRANCH_NOT_FOUND'] },
);

/** GET /api/graph?repo_url=…&branch=… (seed 003): the import graph of the branch head, locks overlaid. */
export function graphRoutes(deps: Pick<AppDeps, 'db' | 'graphs' | 'now'>, locksFor: LocksFor = noLocks) {
  return apiRouter().openapi(graph, async (c) => {
    const query = c.req.valid('query');
    const project = await resolveProjectByRepoUrl(deps, c.var.user.id, query.repo_url);
    return c.json(await graphView(deps.graphs, project, query.branch, locksFor), 200);
  });
}
