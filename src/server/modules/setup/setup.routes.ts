import { z } from '@hono/zod-openapi';
import type { ProjectSetupInfo } from '@/contracts/projects.js';
import type { AppDeps } from '@/server/deps.js';
import { GitError, gitText } from '@/server/lib/git.js';
import { apiRoute, apiRouter, jsonResponse, noContent, uuidParam } from '@/server/openapi/route.js';
import { getOwnedProject } from '../projects/projects.js';
import { proposeSetup } from './setup-detect.js';

const tags = ['projects'];
const params = z.object({ id: uuidParam('id', 'project') });

const entry = z.object({
  key: z.string(),
  command: z.string(),
  bytes: z.number().int(),
  paths: z.array(z.string()),
  createdAt: z.string(),
  lastUsedAt: z.string(),
});
const SetupInfoSchema: z.ZodType<ProjectSetupInfo> = z
  .object({
    setupCommand: z.string().nullable(),
    proposal: z.object({ command: z.string(), because: z.string() }).nullable().openapi({
      description:
        'Proposed from the lockfile at the root when no setup command is set; never run until accepted',
    }),
    cache: z.object({
      entries: z.array(entry),
      bytes: z.number().int(),
      maxBytes: z.number().int(),
      totalMaxBytes: z.number().int(),
    }),
  })
  .openapi('ProjectSetup');

const info = apiRoute(
  {
    method: 'get',
    path: '/{id}/setup',
    operationId: 'getProjectSetup',
    tags,
    summary: 'The setup command, what AutoCoder proposes, and the dependency cache',
    request: { params },
    responses: { 200: jsonResponse(SetupInfoSchema, 'The project’s setup') },
  },
  { access: 'session', errors: ['PROJECT_NOT_FOUND'] },
);

const clear = apiRoute(
  {
    method: 'delete',
    path: '/{id}/setup/cache',
    operationId: 'clearSetupCache',
    tags,
    summary: 'Clear the project’s dependency cache',
    description: 'The next worktree of each key installs again.',
    request: { params },
    responses: { 204: noContent },
  },
  { access: 'session', errors: ['PROJECT_NOT_FOUND'] },
);

/** The names at the root of the default branch (none for a repository without a commit). */
async function rootNames(repoPath: string, branch: string): Promise<string[]> {
  try {
    const out = await gitText(['ls-tree', '--name-only', '-z', `refs/heads/${branch}`, '--'], {
      cwd: repoPath,
    });
    return out.split('\0').filter(Boolean);
  } catch (error) {
    if (error instanceof GitError) return [];
    throw error;
  }
}

/** GET /api/projects/:id/setup, DELETE /api/projects/:id/setup/cache */
export function setupRoutes(deps: AppDeps) {
  return apiRouter()
    .openapi(info, async (c) => {
      const project = await getOwnedProject(deps, c.var.user.id, c.req.valid('param').id);
      const proposal = project.setupCommand
        ? null
        : proposeSetup(await rootNames(project.repoPath, project.defaultBranch));
      return c.json(
        { setupCommand: project.setupCommand, proposal, cache: await deps.depCache.info(project.id) },
        200,
      );
    })
    .openapi(clear, async (c) => {
      const project = await getOwnedProject(deps, c.var.user.id, c.req.valid('param').id);
      await deps.depCache.clear(project.id);
      return c.body(null, 204);
    });
}
