import { diffFileQuerySchema } from '@/contracts/diff.js';
import { apiRoute, apiRouter, jsonResponse } from '@/server/openapi/route.js';
import { DiffFileContentSchema, RunDiffSchema } from '@/server/openapi/schemas-coordination.js';
import { runParams } from './pipeline-declared.routes.js';
import { type RunDiffDeps, runDiff, runDiffFile } from './run-diff.js';

const tags = ['pipeline'];
const errors = ['RUN_NOT_FOUND', 'DIFF_NOT_READY', 'RUN_BRANCH_GONE'] as const;

const diff = apiRoute(
  {
    method: 'get',
    path: '/runs/{runId}/diff',
    operationId: 'getRunDiff',
    tags,
    summary: 'A run’s changes, base..head, with its review’s findings',
    request: { params: runParams },
    responses: { 200: jsonResponse(RunDiffSchema, 'Every changed file and its patch') },
  },
  { access: 'session', errors },
);

const file = apiRoute(
  {
    method: 'get',
    path: '/runs/{runId}/diff/file',
    operationId: 'getRunDiffFile',
    tags,
    summary: 'One changed file: before, after and patch',
    request: { params: runParams, query: diffFileQuerySchema },
    responses: { 200: jsonResponse(DiffFileContentSchema, 'The file at base and at head') },
  },
  { access: 'session', errors: [...errors, 'DIFF_FILE_NOT_FOUND'] },
);

/** /api/pipeline/runs/:runId/diff… — a run's changes as git computes them (issue 8 item 1). */
export function diffRoutes(deps: RunDiffDeps) {
  return apiRouter()
    .openapi(diff, async (c) => c.json(await runDiff(deps, c.var.user.id, c.req.valid('param').runId), 200))
    .openapi(file, async (c) => {
      const { path } = c.req.valid('query');
      return c.json(await runDiffFile(deps, c.var.user.id, c.req.valid('param').runId, path), 200);
    });
}
