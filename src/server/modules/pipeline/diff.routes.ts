import { Hono } from 'hono';
import { diffFileQuerySchema } from '@/contracts/diff.js';
import type { AppEnv } from '@/server/deps.js';
import { readId, readQuery } from '@/server/lib/validate.js';
import { type RunDiffDeps, runDiff, runDiffFile } from './run-diff.js';

/** /api/pipeline/runs/:runId/diff… — a run's changes as git computes them (issue 8 item 1). */
export function diffRoutes(deps: RunDiffDeps) {
  return new Hono<AppEnv>()
    .get('/runs/:runId/diff', async (c) =>
      c.json(await runDiff(deps, c.var.user.id, readId(c, 'runId', 'run'))),
    )
    .get('/runs/:runId/diff/file', async (c) => {
      const runId = readId(c, 'runId', 'run');
      const { path } = readQuery(c, diffFileQuerySchema);
      return c.json(await runDiffFile(deps, c.var.user.id, runId, path));
    });
}
