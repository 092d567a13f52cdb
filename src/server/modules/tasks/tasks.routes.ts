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
import { CreateTaskBody, ListTasksQuery, MoveTaskBody, UpdateTaskBody } from '@/server/openapi/schemas.js';
import { TaskListSchema, TaskSchema } from '@/server/openapi/schemas-tasks.js';
import { readTaskList } from './task-list.js';
import { createTask, deleteTask, getOwnedTask, moveTask, toTask, updateTask } from './tasks.js';

const tags = ['tasks'];
const params = z.object({ id: uuidParam('id', 'task') });
const session = 'session' as const;

const list = apiRoute(
  {
    method: 'get',
    path: '/',
    operationId: 'listTasks',
    tags,
    summary: 'The board: a project’s tasks',
    description:
      'Weak ETag with `Cache-Control: private, no-cache`: revalidate with If-None-Match (304 when unchanged). Gzipped when the client accepts it.',
    request: { query: ListTasksQuery },
    responses: {
      200: jsonResponse(TaskListSchema, 'The cards, or whole tasks with `view=full`'),
      304: { description: 'Not modified since the ETag sent in If-None-Match' },
    },
  },
  { access: session, errors: ['PROJECT_NOT_FOUND'] },
);

const create = apiRoute(
  {
    method: 'post',
    path: '/',
    operationId: 'createTask',
    tags,
    summary: 'Create a task',
    request: { body: jsonRequest(CreateTaskBody) },
    responses: { 201: jsonResponse(TaskSchema, 'The new task') },
  },
  { access: session, errors: ['PROJECT_NOT_FOUND'] },
);

const get = apiRoute(
  {
    method: 'get',
    path: '/{id}',
    operationId: 'getTask',
    tags,
    summary: 'One whole task',
    request: { params },
    responses: { 200: jsonResponse(TaskSchema, 'The task') },
  },
  { access: session, errors: ['TASK_NOT_FOUND'] },
);

const update = apiRoute(
  {
    method: 'patch',
    path: '/{id}',
    operationId: 'updateTask',
    tags,
    summary: 'Edit a task',
    description: 'Status moves go through PATCH /api/tasks/{id}/status.',
    request: { params, body: jsonRequest(UpdateTaskBody) },
    responses: { 200: jsonResponse(TaskSchema, 'The edited task') },
  },
  { access: session, errors: ['TASK_NOT_FOUND'] },
);

const move = apiRoute(
  {
    method: 'patch',
    path: '/{id}/status',
    operationId: 'moveTask',
    tags,
    summary: 'Move a task by hand',
    description:
      'To another column (backlog ↔ spec) or to another place in its own. Building, review and done are reached only through the pipeline.',
    request: { params, body: jsonRequest(MoveTaskBody) },
    responses: { 200: jsonResponse(TaskSchema, 'The moved task') },
  },
  { access: session, errors: ['TASK_NOT_FOUND', 'INVALID_TRANSITION'] },
);

const remove = apiRoute(
  {
    method: 'delete',
    path: '/{id}',
    operationId: 'deleteTask',
    tags,
    summary: 'Delete a task',
    description: 'With its runs. Refused while a pipeline works on it.',
    request: { params },
    responses: { 204: noContent },
  },
  { access: session, errors: ['TASK_NOT_FOUND', 'PIPELINE_ACTIVE'] },
);

export function taskRoutes(deps: AppDeps) {
  return apiRouter()
    .openapi(list, async (c) => {
      const query = c.req.valid('query');
      const list = await readTaskList(deps, c.var.user.id, query, c.req.header('if-none-match'));
      // no-cache: the browser keeps the list and revalidates it with If-None-Match every time.
      c.header('ETag', list.etag);
      c.header('Cache-Control', 'private, no-cache');
      c.header('Vary', 'Accept-Encoding');
      if (list.notModified) return c.body(null, 304);
      c.header('Content-Type', 'application/json');
      // The list is serialised (and gzipped) once per version and query, not per request.
      if (list.gzip && /\bgzip\b/.test(c.req.header('accept-encoding') ?? '')) {
        c.header('Content-Encoding', 'gzip');
        return c.body(list.gzip, 200);
      }
      return c.body(list.json, 200);
    })
    .openapi(create, async (c) => c.json(await createTask(deps, c.var.user.id, c.req.valid('json')), 201))
    .openapi(get, async (c) =>
      c.json(toTask(await getOwnedTask(deps, c.var.user.id, c.req.valid('param').id)), 200),
    )
    .openapi(update, async (c) =>
      c.json(await updateTask(deps, c.var.user.id, c.req.valid('param').id, c.req.valid('json')), 200),
    )
    .openapi(move, async (c) =>
      c.json(await moveTask(deps, c.var.user.id, c.req.valid('param').id, c.req.valid('json')), 200),
    )
    .openapi(remove, async (c) => {
      await deleteTask(deps, c.var.user.id, c.req.valid('param').id);
      return c.body(null, 204);
    });
}
