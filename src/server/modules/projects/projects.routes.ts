import { Hono } from 'hono';
import { createProjectSchema, filePathQuerySchema, updateProjectSchema } from '@/contracts/projects.js';
import type { AppDeps, AppEnv } from '@/server/deps.js';
import { readId, readJson, readQuery } from '@/server/lib/validate.js';
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

export function projectRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get('/', async (c) => c.json({ projects: await listProjects(deps, c.var.user.id) }))
    .post('/', async (c) => {
      const input = await readJson(c, createProjectSchema);
      return c.json(await createProjectForUser(deps, c.var.user.id, input), 201);
    })
    .get('/import-options', (c) => c.json(importOptions(deps)))
    .get('/:id', async (c) => {
      const row = await getOwnedProject(deps, c.var.user.id, readId(c, 'id', 'project'));
      return c.json(toProject(row));
    })
    .patch('/:id', async (c) => {
      const id = readId(c, 'id', 'project');
      const settings = await readJson(c, updateProjectSchema);
      return c.json(await updateOwnedProject(deps, c.var.user.id, id, settings));
    })
    .delete('/:id', async (c) => {
      await deleteOwnedProject(deps, c.var.user.id, readId(c, 'id', 'project'));
      return c.body(null, 204);
    })
    .get('/:id/tree', async (c) => c.json(await projectTree(deps, c.var.user.id, readId(c, 'id', 'project'))))
    .get('/:id/file', async (c) => {
      const id = readId(c, 'id', 'project');
      const { path } = readQuery(c, filePathQuerySchema);
      return c.json(await projectFile(deps, c.var.user.id, id, path));
    });
}
