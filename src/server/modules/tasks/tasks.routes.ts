import { Hono } from 'hono';
import {
  createTaskSchema,
  listTasksQuerySchema,
  updateTaskSchema,
  updateTaskStatusSchema,
} from '../../../contracts/tasks.js';
import type { AppDeps, AppEnv } from '../../deps.js';
import { readId, readJson, readQuery } from '../../lib/validate.js';
import { createTask, deleteTask, getOwnedTask, listTasks, moveTask, toTask, updateTask } from './tasks.js';

export function taskRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get('/', async (c) =>
      c.json({ tasks: await listTasks(deps, c.var.user.id, readQuery(c, listTasksQuerySchema)) }),
    )
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
