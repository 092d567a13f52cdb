import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Service, WorkspaceList } from '@/contracts/services.js';
import { newTask, runToEnd } from '../pipeline/testing/run-kit.js';
import { pidsRunning } from '../sandbox/sandbox-testing.js';
import {
  echoService,
  rawRequest,
  type ServedApp,
  serveTestApp,
  userWithWorkspace,
  waitFor,
  writeService,
} from './testing/fixture.js';

const token = () => String(90_000_000 + Math.floor(Math.random() * 9_000_000));

describe('services leave no process behind (process table)', () => {
  let host: ServedApp;
  let bwrap: ServedApp;
  beforeAll(async () => {
    host = await serveTestApp({ sandboxMode: 'host' });
    bwrap = await serveTestApp();
  }, 60_000);
  afterAll(async () => {
    await host?.close();
    await bwrap?.close();
  });

  for (const [label, app] of [
    ['as the server’s user (host)', () => host],
    ['in bubblewrap (the default where installed)', () => bwrap],
  ] as const) {
    it(`stops a service and the children it started, ${label}`, async () => {
      const served = app();
      const owner = await userWithWorkspace(served);
      const [child, main] = [token(), token()];
      await writeService(owner.repoPath, 'tree', `#!/bin/sh\nsleep ${child} &\nexec sleep ${main}\n`);
      await owner.client.post(`${owner.api}/tree/start`);
      await waitFor(
        () => pidsRunning(`sleep ${child}`),
        (pids) => pids.length > 0,
      );
      expect(await pidsRunning(`sleep ${main}`)).not.toEqual([]);
      expect((await owner.client.post(`${owner.api}/tree/stop`)).status).toBe(200);
      expect(await pidsRunning(`sleep ${child}`)).toEqual([]);
      expect(await pidsRunning(`sleep ${main}`)).toEqual([]);
      expect((await owner.client.get<Service>(`${owner.api}/tree`)).body).toMatchObject({
        status: 'stopped',
      });
    });
  }

  it('starts one process when two starts arrive at once', async () => {
    const owner = await userWithWorkspace(bwrap);
    const once = token();
    await writeService(owner.repoPath, 'once', `#!/bin/sh\nexec sleep ${once}\n`);
    const answers = await Promise.all([1, 2, 3].map(() => owner.client.post(`${owner.api}/once/start`)));
    expect(answers.map((a) => a.status).sort()).toEqual([202, 409, 409]);
    await waitFor(
      () => pidsRunning(`sleep ${once}`),
      (pids) => pids.length > 0,
    );
    expect(await pidsRunning(`sleep ${once}`)).toHaveLength(1);
    await owner.client.post(`${owner.api}/once/stop`);
    expect(await pidsRunning(`sleep ${once}`)).toEqual([]);
  });

  it('ends a service that ignores SIGTERM with SIGKILL after 5 s', async () => {
    const owner = await userWithWorkspace(host);
    const stubborn = token();
    await writeService(
      owner.repoPath,
      'stubborn',
      `#!/bin/sh\ntrap '' TERM\nsleep ${stubborn} &\nwait\nwait\n`,
    );
    await owner.client.post(`${owner.api}/stubborn/start`);
    await waitFor(
      () => pidsRunning(`sleep ${stubborn}`),
      (pids) => pids.length > 0,
    );
    const started = Date.now();
    expect((await owner.client.post(`${owner.api}/stubborn/stop`)).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(4900);
    expect(await pidsRunning(`sleep ${stubborn}`)).toEqual([]);
  }, 30_000);

  it('stops a run’s services when its worktree goes (approval), and the workspace leaves the list', async () => {
    const { client, projectId, taskId } = await newTask(bwrap.t);
    const run = await runToEnd(bwrap.t, client, taskId);
    expect(run.status).toBe('passed');
    const list = await client.get<WorkspaceList>(`/api/projects/${projectId}/workspaces`);
    const workspace = list.body.workspaces.find((w) => w.kind === 'run');
    expect(workspace).toMatchObject({
      kind: 'run',
      projectId,
      taskId,
      runId: run.runId,
      branch: expect.stringMatching(/^autocoder\//),
    });
    expect(workspace?.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    const worktree = (
      await bwrap.t.deps.db.query.pipelineRuns.findFirst({ where: (r, { eq }) => eq(r.id, run.runId) })
    )?.worktreePath;
    if (!worktree || !workspace) throw new Error('the run has no worktree');
    const api = `/api/workspaces/${workspace.id}/services`;
    await writeService(worktree, 'web', echoService('//---\n// http: auto\n//---'));
    await client.post(`${api}/web/start`);
    const running = await waitFor(
      async () => (await client.get<Service>(`${api}/web`)).body,
      (s) => s.status === 'running',
    );
    expect(running.http).toEqual(expect.any(Number));
    const proxied = await rawRequest(bwrap.port, {
      path: `${api}/web/http/`,
      headers: { cookie: client.cookie },
    });
    expect(proxied.status).toBe(200);

    expect((await client.post(`/api/pipeline/${taskId}/approve`)).status).toBe(200);
    await waitFor(
      () => pidsRunning(worktree),
      (pids) => pids.length === 0,
    );
    const after = await client.get<WorkspaceList>(`/api/projects/${projectId}/workspaces`);
    expect(after.body.workspaces.map((w) => w.kind)).toEqual(['project']);
    expect((await client.get(api)).status).toBe(404);
  }, 120_000);
});
