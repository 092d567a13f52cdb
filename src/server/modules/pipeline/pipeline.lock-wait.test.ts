import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LockWaitData, StoredEvent } from '@/contracts/pipeline.js';
import { createTestApp, type TestApp } from '@/server/testing/test-app.js';
import {
  gitIn,
  LONG_TEST_MS,
  newTask,
  post,
  projectEvents,
  repoOf,
  startOk,
  statusOf,
  type TaskSetup,
  taskEvents,
  WAIT_LIMIT_MS,
} from './testing/run-kit.js';

/**
 * Issue 27 item 2, through the real app: a run waiting for an agent's lock says so on its task's
 * stream and its project's (`lock-wait`: the file, the holder, until when), and says when it stops
 * waiting. The simulator's coder writes `src/<slug>.ts` for a feature task.
 */
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ runtime: { lockWaitMs: 300 } });
});
afterAll(async () => {
  await t.close();
});

async function agentToken(setup: TaskSetup, name: string) {
  const res = await setup.client.post<{ id: string; token: string }>('/api/tokens', { name });
  expect(res.status).toBe(201);
  const repo = await repoOf(t, setup.projectId);
  return async (files: string[], status: string, message: string, extra: Record<string, unknown> = {}) => {
    const answer = await t.app.request('http://localhost/api/post_status', {
      method: 'POST',
      headers: {
        host: 'localhost',
        authorization: `Bearer ${res.body.token}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        repo_url: `http://localhost/git/${setup.projectId}.git`,
        branch: repo.defaultBranch,
        file_paths: files,
        status,
        message,
        ...extra,
      }),
    });
    expect(answer.status).toBe(200);
    return { id: res.body.id, repo };
  };
}

async function until(setup: TaskSetup, done: (status: string) => boolean, what: string) {
  const deadline = Date.now() + WAIT_LIMIT_MS;
  for (;;) {
    const run = await statusOf(setup.client, setup.taskId);
    if (done(run.status)) return run;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}: ${run.status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const waitsIn = (events: StoredEvent[]) =>
  events.flatMap((e) => (e.type === 'lock-wait' ? [e.data as LockWaitData] : []));

describe('a run waiting for a lock says so', () => {
  it(
    'tells the file, the holder and the end of the wait, then that the wait is over, before it pauses; a Retry that takes the lock at once waits for nothing',
    async () => {
      const setup = await newTask(t, { coderEngine: 'one-shot', title: 'Add waiting helper' });
      const alice = await agentToken(setup, 'Alice');
      const file = 'src/add-waiting-helper.ts';
      const { id: aliceId, repo } = await alice([file], 'WRITING', 'Alice rewrites the helper.');

      await startOk(setup.client, setup.taskId);
      const paused = await until(setup, (status) => status === 'paused', 'the pause');
      expect(paused.errorDetails).toMatchObject({ type: 'lock_conflict' });

      const events = await taskEvents(t, setup.taskId);
      const waits = waitsIn(events);
      expect(waits).toHaveLength(2);
      const [began, ended] = waits;
      expect(began).toMatchObject({
        runId: paused.runId,
        taskId: setup.taskId,
        path: file,
        holder: { id: aliceId, name: 'Alice' },
      });
      expect(typeof began?.until).toBe('number');
      expect(ended).toMatchObject({ runId: paused.runId, path: file, until: null });
      // The wait is over before the run says it paused.
      const index = (match: (e: StoredEvent) => boolean) => events.findIndex(match);
      const endedAt = index((e) => e.type === 'lock-wait' && e.data.until === null);
      expect(endedAt).toBeGreaterThan(index((e) => e.type === 'lock-wait' && e.data.until !== null));
      expect(endedAt).toBeLessThan(index((e) => e.type === 'error'));
      // The card hears the same from the project's stream.
      expect(waitsIn(await projectEvents(t, setup.projectId))).toEqual(waits);

      // Alice lets go; the Retry takes the lock at once.
      const head = (await gitIn(repo.repoPath, ['rev-parse', repo.defaultBranch])).trim();
      await alice([file], 'OPEN', 'Alice is done.', { new_repo_head: head });
      expect((await post(setup.client, `/api/pipeline/${setup.taskId}/retry`)).status).toBe(202);
      const done = await until(setup, (status) => status !== 'running' && status !== 'paused', 'the end');
      expect(done.status).toBe('passed');
      expect(waitsIn(await taskEvents(t, setup.taskId))).toHaveLength(2);
    },
    LONG_TEST_MS,
  );
});
