import { z } from '@hono/zod-openapi';
import type { AppDeps } from '@/server/deps.js';
import {
  apiRoute,
  apiRouter,
  jsonRequest,
  jsonResponse,
  noContent,
  uuidParam,
} from '@/server/openapi/route.js';
import {
  CreateProjectBody,
  FilePathQuery,
  ImportOptionsSchema,
  ProjectFileSchema,
  ProjectListSchema,
  ProjectSchema,
  ProjectTreeSchema,
  UpdateProjectBody,
} from '@/server/openapi/schemas.js';
import {
  createProjectForUser,
  deleteOwnedProject,
  getOwnedProject,
  importOptions,
  listProjects,
  projectFile,
  projectTree,
  toProject,
  updateOwnedProject,
} from './projects.js';

const tags = ['projects'];
const params = z.object({ id: uuidParam('id', 'project') });
const session = 'session' as const;

const list = apiRoute(
  {
    method: 'get',
    path: '/',
    operationId: 'listProjects',
    tags,
    summary: 'The user’s projects',
    responses: { 200: jsonResponse(ProjectListSchema, 'Every project of the user') },
  },
  { access: session },
);

const create = apiRoute(
  {
    method: 'post',
    path: '/',
    operationId: 'createProject',
    tags,
    summary: 'Create a project',
    description:
      'A new empty repository, a clone of `repoUrl` (http(s) or ssh, run untrusted), or an import of `importPath` (a local path under AUTOCODER_IMPORT_ROOTS).',
    request: { body: jsonRequest(CreateProjectBody) },
    responses: { 201: jsonResponse(ProjectSchema, 'The new project') },
  },
  {
    access: session,
    errors: ['IMPORT_PATH_NOT_ALLOWED', 'ADDRESS_NOT_ALLOWED', 'REPO_IMPORT_FAILED'],
  },
);

const options = apiRoute(
  {
    method: 'get',
    path: '/import-options',
    operationId: 'getImportOptions',
    tags,
    summary: 'What the import dialog may offer on this server',
    responses: { 200: jsonResponse(ImportOptionsSchema, 'Import options') },
  },
  { access: session },
);

const get = apiRoute(
  {
    method: 'get',
    path: '/{id}',
    operationId: 'getProject',
    tags,
    summary: 'One project',
    request: { params },
    responses: { 200: jsonResponse(ProjectSchema, 'The project') },
  },
  { access: session, errors: ['PROJECT_NOT_FOUND'] },
);

const update = apiRoute(
  {
    method: 'patch',
    path: '/{id}',
    operationId: 'updateProject',
    tags,
    summary: 'Change a project’s settings',
    description:
      'Its name, and the check the pipeline runs after each coding step (an empty command clears it).',
    request: { params, body: jsonRequest(UpdateProjectBody) },
    responses: { 200: jsonResponse(ProjectSchema, 'The project as changed') },
  },
  { access: session, errors: ['PROJECT_NOT_FOUND'] },
);

const remove = apiRoute(
  {
    method: 'delete',
    path: '/{id}',
    operationId: 'deleteProject',
    tags,
    summary: 'Delete a project',
    description: 'With its tasks, runs, worktrees and repository. The last project stays.',
    request: { params },
    responses: { 204: noContent },
  },
  { access: session, errors: ['PROJECT_NOT_FOUND', 'PIPELINE_ACTIVE', 'LAST_PROJECT'] },
);

const tree = apiRoute(
  {
    method: 'get',
    path: '/{id}/tree',
    operationId: 'getProjectTree',
    tags,
    summary: 'The files of the default branch',
    request: { params },
    responses: { 200: jsonResponse(ProjectTreeSchema, 'The tree') },
  },
  { access: session, errors: ['PROJECT_NOT_FOUND'] },
);

const file = apiRoute(
  {
    method: 'get',
    path: '/{id}/file',
    operationId: 'getProjectFile',
    tags,
    summary: 'One file of the default branch',
    request: { params, query: FilePathQuery },
    responses: { 200: jsonResponse(ProjectFileSchema, 'The file (its beginning when large)') },
  },
  { access: session, errors: ['PROJECT_NOT_FOUND', 'INVALID_PATH', 'FILE_NOT_FOUND'] },
);

export function projectRoutes(deps: AppDeps) {
  return apiRouter()
    .openapi(list, async (c) => c.json({ projects: await listProjects(deps, c.var.user.id) }, 200))
    .openapi(create, async (c) =>
      c.json(await createProjectForUser(deps, c.var.user.id, c.req.valid('json')), 201),
    )
    .openapi(options, (c) => c.json(importOptions(deps), 200))
    .openapi(get, async (c) => {
      const row = await getOwnedProject(deps, c.var.user.id, c.req.valid('param').id);
      return c.json(toProject(row), 200);
    })
    .openapi(update, async (c) =>
      c.json(
        await updateOwnedProject(deps, c.var.user.id, c.req.valid('param').id, c.req.valid('json')),
        200,
      ),
    )
    .openapi(remove, async (c) => {
      await deleteOwnedProject(deps, c.var.user.id, c.req.valid('param').id);
      return c.body(null, 204);
    })
    .openapi(tree, async (c) => c.json(await projectTree(deps, c.var.user.id, c.req.valid('param').id), 200))
    .openapi(file, async (c) => {
      const { path } = c.req.valid('query');
      return c.json(await projectFile(deps, c.var.user.id, c.req.valid('param').id, path), 200);
    });
}
