import { Hono } from 'hono';
import {
  createTaskSchema,
  listTasksQuerySchema,
  updateTaskSchema,
  updateTaskStatusSchema,
} from '@/contracts/tasks.js';
import type { AppDeps, AppEnv } from '@/server/deps.js';
import { readId, readJson, readQuery } from '@/server/lib/validate.js';
import { readTaskList } from './task-list.js';
import { createTask, deleteTask, getOwnedTask, moveTask, toTask, updateTask } from './tasks.js';

export function taskRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get('/', async (c) => {
      const query = readQuery(c, listTasksQuerySchema);
      const list = await readTaskList(deps, c.var.user.id, query, c.req.header('if-none-match'));
      // no-cache: the browser keeps the list and revalidates it with If-None-Match every time.
      c.header('ETag', list.etag);
      c.header('Cache-Control', 'private, no-cache');
      c.header('Vary', 'Accept-Encoding');
      if (list.notModified) return c.body(null, 304);
      c.header('Content-Type', 'application/json');
      if (list.gzip && /\bgzip\b/.test(c.req.header('accept-encoding') ?? '')) {
        c.header('Content-Encoding', 'gzip');
        return c.body(list.gzip, 200);
      }
      return c.body(list.json, 200);
    })
    .post('/', async (c) =>
      c.json(await createTask(deps, c.var.user.id, await readJson(c, createTaskSchema)), 201),
    )
    .get('/:id', async (c) =>
      c.json(toTask(await getOwnedTask(deps, c.var.user.id, readId(c, 'id', 'task')))),
    )
    .patch('/:id', async (c) => {
      const id = readId(c, 'id', 'task');
      return c.json(await updateTask(deps, c.var.user.id, id, await readJson(c, updateTaskSchema)));
    })
    .patch('/:id/status', async (c) => {
      const id = readId(c, 'id', 'task');
      return c.json(await moveTask(deps, c.var.user.id, id, await readJson(c, updateTaskStatusSchema)));
    })
    .delete('/:id', async (c) => {
      await deleteTask(deps, c.var.user.id, readId(c, 'id', 'task'));
      return c.body(null, 204);
    });
}
