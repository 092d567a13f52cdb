import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import type { CheckStatusResponse, ProjectLocksResponse } from '@/contracts/coordination.js';
import { REDIS_URL, redisAvailable } from '@/server/testing/lock-stores.js';
import { createTestApp, type TestApp, TestClient } from '@/server/testing/test-app.js';
import type { LockStore } from '../coordination/lock-store.js';
import { createRedisLockStore } from '../coordination/redis-lock-store.js';
import { LONG_TEST_MS, newTask, post, repoOf, startOk, statusOf, WAIT_LIMIT_MS } from './testing/run-kit.js';

/**
 * Issue 27 item 3, through the real app: a run's locks are kept through Review across a restart —
 * a new app over the same database and data dir (and, with Redis, the same Redis) holds them again,
 * once, under the run's name and messages; approving releases them and the next start takes none.
 */
const open: TestApp[] = [];
afterAll(async () => {
  for (const t of open.splice(0)) await t.close();
});

const stores: [string, boolean, (() => () => LockStore) | null][] = [
  ['in-process', true, null],
  [
    'Redis',
    redisAvailable,
    () => {
      const prefix = `autocoder-test:${randomUUID()}:`;
      return () => createRedisLockStore(REDIS_URL, prefix);
    },
  ],
];

async function checkAs(t: TestApp, token: string, projectId: string, branch: string, files: string[]) {
  const res = await t.app.request('http://localhost/api/check_status', {
    method: 'POST',
    headers: { host: 'localhost', authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ repo_url: `http://localhost/git/${projectId}.git`, branch, file_paths: files }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as CheckStatusResponse;
}

/** The app over the same database and data dir as `before`, with a client signed in as `client` was. */
function reopened(before: TestApp, client: TestClient, storeOf: (() => LockStore) | null) {
  return createTestApp({
    reopen: { database: before.database, dataDir: before.dataDir },
    runtime: { lockWaitMs: 300, ...(storeOf ? { lockStore: storeOf() } : {}) },
  }).then((t) => {
    open.push(t);
    const next = new TestClient(t.app);
    next.cookie = client.cookie;
    return { t, client: next };
  });
}

async function stop(t: TestApp) {
  open.splice(open.indexOf(t), 1);
  await t.stop();
}

describe.each(stores)(
  'a run in Review keeps its locks through a restart (%s store)',
  (_name, available, factory) => {
    it.skipIf(!available)(
      'a new app lists them again and agents still meet CONFLICT; approve releases them and the next start takes none',
      async () => {
        const storeOf = factory ? factory() : null;
        const first = await createTestApp({
          runtime: { lockWaitMs: 300, ...(storeOf ? { lockStore: storeOf() } : {}) },
        });
        open.push(first);
        const setup = await newTask(first, { coderEngine: 'one-shot', title: 'Add greeting helper' });
        const token = await setup.client.post<{ token: string }>('/api/tokens', { name: 'Alice' });
        expect(token.status).toBe(201);
        const { defaultBranch: branch } = await repoOf(first, setup.projectId);
        const file = 'src/add-greeting-helper.ts';

        await startOk(setup.client, setup.taskId);
        const deadline = Date.now() + WAIT_LIMIT_MS;
        let run = await statusOf(setup.client, setup.taskId);
        while (run.status === 'running') {
          if (Date.now() > deadline) throw new Error('gave up waiting for the run to end');
          await new Promise((resolve) => setTimeout(resolve, 50));
          run = await statusOf(setup.client, setup.taskId);
        }
        expect(run.status).toBe('passed');
        await first.deps.orchestrator.idle();
        const seen = await checkAs(first, token.body.token, setup.projectId, branch, [file]);
        expect(seen.status).toBe('CONFLICT');
        const held = await setup.client.get<ProjectLocksResponse>(`/api/projects/${setup.projectId}/locks`);
        expect(held.body.locks.length).toBeGreaterThan(0);
        await stop(first);

        const second = await reopened(first, setup.client, storeOf);
        const listed = await second.client.get<ProjectLocksResponse>(
          `/api/projects/${setup.projectId}/locks`,
        );
        expect(listed.status).toBe(200);
        // The same locks, once each: same holder (id and name), paths and messages.
        const shape = (locks: ProjectLocksResponse['locks']) =>
          locks
            .map(({ path, status, agent, message, taskId }) => ({ path, status, agent, message, taskId }))
            .sort((a, b) => a.path.localeCompare(b.path));
        expect(shape(listed.body.locks)).toEqual(shape(held.body.locks));
        expect(listed.body.locks).toContainEqual(
          expect.objectContaining({
            path: file,
            taskId: setup.taskId,
            agent: { id: run.runId, name: 'Add greeting helper' },
          }),
        );
        const again = await checkAs(second.t, token.body.token, setup.projectId, branch, [file]);
        expect(again.status).toBe('CONFLICT');
        expect(again.locks[file]).toMatchObject({ user: run.runId, user_name: 'Add greeting helper' });
        expect(again.locks[file]?.message).toBe(seen.locks[file]?.message);

        expect((await post(second.client, `/api/pipeline/${setup.taskId}/approve`)).status).toBe(200);
        expect((await checkAs(second.t, token.body.token, setup.projectId, branch, [file])).status).toBe(
          'OK',
        );
        await stop(second.t);

        const third = await reopened(second.t, setup.client, storeOf);
        const after = await third.client.get<ProjectLocksResponse>(`/api/projects/${setup.projectId}/locks`);
        expect(after.body.locks).toEqual([]);
        await stop(third.t);
        await third.t.database.close();
        await rm(third.t.dataDir, { recursive: true, force: true });
      },
      LONG_TEST_MS,
    );
  },
);

describe('deleting a task in Review', () => {
  it(
    'releases its run’s locks, and a restart does not take them again',
    async () => {
      const first = await createTestApp({ runtime: { lockWaitMs: 300 } });
      open.push(first);
      const setup = await newTask(first, { coderEngine: 'one-shot', title: 'Add parting helper' });
      const token = await setup.client.post<{ token: string }>('/api/tokens', { name: 'Bob' });
      const { defaultBranch: branch } = await repoOf(first, setup.projectId);
      const file = 'src/add-parting-helper.ts';
      await startOk(setup.client, setup.taskId);
      const deadline = Date.now() + WAIT_LIMIT_MS;
      while ((await statusOf(setup.client, setup.taskId)).status === 'running') {
        if (Date.now() > deadline) throw new Error('gave up waiting for the run to end');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await first.deps.orchestrator.idle();
      expect((await checkAs(first, token.body.token, setup.projectId, branch, [file])).status).toBe(
        'CONFLICT',
      );

      expect((await setup.client.delete(`/api/tasks/${setup.taskId}`)).status).toBe(204);
      expect((await checkAs(first, token.body.token, setup.projectId, branch, [file])).status).toBe('OK');
      await stop(first);
      const second = await reopened(first, setup.client, null);
      const after = await second.client.get<ProjectLocksResponse>(`/api/projects/${setup.projectId}/locks`);
      expect(after.body.locks).toEqual([]);
    },
    LONG_TEST_MS,
  );
});
