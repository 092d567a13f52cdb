import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Service, WorkspaceList } from '@/contracts/services.js';
import { gitText } from '@/server/lib/git.js';
import { newTask, runToEnd } from '../pipeline/testing/run-kit.js';
import { echoService, type ServedApp, serveTestApp, waitFor, writeService } from './testing/fixture.js';

let served: ServedApp;
beforeAll(async () => {
  served = await serveTestApp();
}, 60_000);
afterAll(() => served?.close());

const gitIn = async (dir: string, ...args: string[]) => (await gitText(args, { cwd: dir })).trim();

describe('the project workspace while its services run', () => {
  it('keeps its files through an approval, and follows the default branch once its last service stops', async () => {
    const { client, projectId, taskId } = await newTask(served.t);
    expect((await runToEnd(served.t, client, taskId)).status).toBe('passed');
    const list = await client.get<WorkspaceList>(`/api/projects/${projectId}/workspaces`);
    const workspace = list.body.workspaces.find((w) => w.kind === 'project');
    if (!workspace) throw new Error('no project workspace');
    expect(workspace.heldAt).toBeNull();
    const repo = path.join(served.t.deps.dataDir, 'repos', projectId);
    const api = `/api/workspaces/${workspace.id}/services`;
    await writeService(repo, 'web', echoService('//---\n// http: auto\n//---'));
    await writeService(repo, 'other', echoService('//---\n// http: auto\n//---'));
    const before = await gitIn(repo, 'rev-parse', 'HEAD');
    for (const id of ['web', 'other']) {
      expect((await client.post(`${api}/${id}/start`)).status).toBe(202);
      await waitFor(
        async () => (await client.get<Service>(`${api}/${id}`)).body,
        (s) => s.status === 'running',
      );
    }

    expect((await client.post(`/api/pipeline/${taskId}/approve`)).status).toBe(200);
    const main = await gitIn(repo, 'rev-parse', 'refs/heads/main');
    expect(main).not.toBe(before);
    const added = (await gitIn(repo, 'diff', '--name-only', '--diff-filter=A', before, main)).split('\n');
    expect(added.length).toBeGreaterThan(0);
    // The branch moved; the running services' files did not.
    expect(await gitIn(repo, 'rev-parse', 'HEAD')).toBe(before);
    for (const file of added) expect(existsSync(path.join(repo, file))).toBe(false);
    // The list says so: the project workspace is held behind its branch.
    const projectOf = async () =>
      (await client.get<WorkspaceList>(`/api/projects/${projectId}/workspaces`)).body.workspaces.find(
        (w) => w.kind === 'project',
      );
    expect(await projectOf()).toMatchObject({ id: workspace.id, branch: 'main', heldAt: before });

    // One of two stops: still held.
    expect((await client.post(`${api}/web/stop`)).status).toBe(200);
    expect(await gitIn(repo, 'rev-parse', 'HEAD')).toBe(before);
    expect((await client.post(`${api}/other/stop`)).status).toBe(200);
    await waitFor(
      () => gitIn(repo, 'rev-parse', 'HEAD'),
      (head) => head === main,
    );
    expect(await gitIn(repo, 'symbolic-ref', 'HEAD')).toBe('refs/heads/main');
    expect((await projectOf())?.heldAt).toBeNull();
    for (const file of added) expect(existsSync(path.join(repo, file))).toBe(true);
    // Only the service files, which were never committed, are not the branch's.
    expect((await gitIn(repo, 'status', '--porcelain')).split('\n')).toEqual(['?? .discobot/']);
  }, 120_000);
});
