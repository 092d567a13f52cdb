import { Hono } from 'hono';
import { graphQuerySchema } from '@/contracts/graph.js';
import type { AppDeps, AppEnv } from '@/server/deps.js';
import { readQuery } from '@/server/lib/validate.js';
import { resolveProjectByRepoUrl } from '../projects/projects.js';
import { graphView, type LocksFor, noLocks } from './graph-view.js';

/** GET /api/graph?repo_url=…&branch=… (seed 003): the import graph of the branch head, locks overlaid. */
export function graphRoutes(deps: Pick<AppDeps, 'db' | 'graphs'>, locksFor: LocksFor = noLocks) {
  return new Hono<AppEnv>().get('/', async (c) => {
    const query = readQuery(c, graphQuerySchema);
    const project = await resolveProjectByRepoUrl(deps, c.var.user.id, query.repo_url);
    return c.json(await graphView(deps.graphs, project, query.branch, locksFor));
  });
}
