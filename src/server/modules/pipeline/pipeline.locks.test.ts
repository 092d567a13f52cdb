import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  CheckStatusResponse,
  PostStatusResponse,
  ProjectLocksResponse,
} from '@/contracts/coordination.js';
import type { StoredEvent } from '@/contracts/pipeline.js';
import { createTestApp, type TestApp } from '@/server/testing/test-app.js';
import {
  gitIn,
  LONG_TEST_MS,
  newTask,
  post,
  projectEvents,
  type RunStatusBody,
  repoOf,
  startOk,
  statusOf,
  type TaskSetup,
  WAIT_LIMIT_MS,
} from './testing/run-kit.js';

/**
 * Issue 9 item 5, through the real app: an external agent (a token over REST) and a pipeline run
 * contend for the files the simulator's coder writes for a feature task "<title>":
 * `src/<slug>.ts` (subtasks 1 and 2) and `docs/<slug>.md` (subtask 3).
 */
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ runtime: { lockWaitMs: 300 } });
});
afterAll(async () => {
  await t.close();
});

class Agent {
  constructor(
    readonly id: string,
    readonly name: string,
    private readonly token: string,
    private readonly projectId: string,
    private readonly branch: string,
  ) {}
  private async call<T>(route: string, body: Record<string, unknown>) {
    const res = await t.app.request(`http://localhost/api/${route}`, {
      method: 'POST',
      headers: {
        host: 'localhost',
        authorization: `Bearer ${this.token}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        repo_url: `http://localhost/git/${this.projectId}.git`,
        branch: this.branch,
        ...body,
      }),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as T;
  }
  check(files: string[]) {
    return this.call<CheckStatusResponse>('check_status', { file_paths: files });
  }
  post(files: string[], status: string, message: string, extra: Record<string, unknown> = {}) {
    return this.call<PostStatusResponse>('post_status', { file_paths: files, status, message, ...extra });
  }
}

async function agentOf(setup: TaskSetup, name: string) {
  const res = await setup.client.post<{ id: string; name: string; token: string }>('/api/tokens', { name });
  expect(res.status).toBe(201);
  const repo = await repoOf(t, setup.projectId);
  return new Agent(res.body.id, res.body.name, res.body.token, setup.projectId, repo.defaultBranch);
}

async function until(setup: TaskSetup, done: (run: RunStatusBody) => boolean, what: string) {
  const deadline = Date.now() + WAIT_LIMIT_MS;
  for (;;) {
    const run = await statusOf(setup.client, setup.taskId);
    if (done(run)) return run;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}: ${run.status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const lockEventsOf = async (projectId: string, taskId: string) =>
  (await projectEvents(t, projectId)).filter(
    (e: StoredEvent) =>
      e.type.startsWith('lock-') &&
      e.type !== 'lock-wait' &&
      (e.data as { taskId?: string }).taskId === taskId,
  );

describe('our pipeline obeys the locks', () => {
  it(
    'waits for an agent writing its file, pauses with lock_conflict naming them, and Retry completes once they let go; the lock is kept through Review and approval releases it',
    async () => {
      const setup = await newTask(t, { coderEngine: 'one-shot', title: 'Add greeting helper' });
      const alice = await agentOf(setup, 'Alice');
      const file = 'src/add-greeting-helper.ts';
      expect((await alice.post([file], 'WRITING', 'Alice rewrites the greeting.')).success).toBe(true);

      await startOk(setup.client, setup.taskId);
      const paused = await until(setup, (run) => run.status === 'paused', 'the pause');
      expect(paused.errorDetails).toMatchObject({ type: 'lock_conflict', retryable: true });
      const message = paused.errorDetails?.message ?? '';
      for (const part of [file, 'Alice', alice.id, 'Alice rewrites the greeting.'])
        expect(message).toContain(part);
      // Nothing of the coder's was applied.
      const repo = await repoOf(t, setup.projectId);
      expect(
        await gitIn(repo.repoPath, ['log', '--format=%s', `${repo.defaultBranch}..${paused.branch}`]),
      ).toBe('');
      const refused = await lockEventsOf(setup.projectId, setup.taskId);
      expect(refused.map((e) => e.type)).toEqual(['lock-refused']);
      expect(refused[0]?.data).toMatchObject({ agent: { name: 'Add greeting helper' }, conflicts: [file] });

      const head = (await gitIn(repo.repoPath, ['rev-parse', repo.defaultBranch])).trim();
      expect((await alice.post([file], 'OPEN', 'Alice is done.', { new_repo_head: head })).success).toBe(
        true,
      );
      expect((await post(setup.client, `/api/pipeline/${setup.taskId}/retry`)).status).toBe(202);
      const passed = await until(
        setup,
        (run) => run.status !== 'running' && run.status !== 'paused',
        'the end',
      );
      expect(passed.status).toBe('passed');

      // In Review the run still holds its file, under its task's name and one sentence of its subtask.
      const seen = await alice.check([file]);
      expect(seen.status).toBe('CONFLICT');
      expect(seen.locks[file]).toMatchObject({ user: passed.runId, user_name: 'Add greeting helper' });
      expect(seen.locks[file]?.message).toMatch(/^Create src\/add-greeting-helper\.ts|Handle lists/);
      expect((await alice.post([file], 'WRITING', 'Alice tries again.')).orchestration.action).toBe('WAIT');
      // The board starts its lock badges from the project's live locks: the run's name its task.
      const listed = await setup.client.get<ProjectLocksResponse>(`/api/projects/${setup.projectId}/locks`);
      expect(listed.status).toBe(200);
      expect(listed.body.locks).toContainEqual(
        expect.objectContaining({
          path: file,
          taskId: setup.taskId,
          agent: { id: passed.runId, name: 'Add greeting helper' },
        }),
      );
      const stranger = await newTask(t, { coderEngine: 'one-shot', title: 'Something else' });
      expect((await stranger.client.get(`/api/projects/${setup.projectId}/locks`)).status).toBe(404);

      expect((await post(setup.client, `/api/pipeline/${setup.taskId}/approve`)).status).toBe(200);
      expect((await alice.check([file])).status).toBe('OK');
      const events = await lockEventsOf(setup.projectId, setup.taskId);
      expect(events.at(-1)).toMatchObject({ type: 'lock-released' });
      expect(events.at(-1)?.data).toMatchObject({ files: expect.arrayContaining([file]) });
    },
    LONG_TEST_MS,
  );

  it(
    'cancel releases the locks a paused run holds',
    async () => {
      const setup = await newTask(t, { coderEngine: 'one-shot', title: 'Add farewell helper' });
      const bob = await agentOf(setup, 'Bob');
      const docs = 'docs/add-farewell-helper.md';
      const main = 'src/add-farewell-helper.ts';
      expect((await bob.post([docs], 'WRITING', 'Bob documents farewells.')).success).toBe(true);
      await startOk(setup.client, setup.taskId);
      const paused = await until(setup, (run) => run.status === 'paused', 'the pause');
      expect(paused.errorDetails?.message).toContain(docs);
      // The first two subtasks were applied under the run's lock on the main file.
      expect((await bob.check([main])).locks[main]).toMatchObject({ user: paused.runId, status: 'WRITING' });

      expect((await post(setup.client, `/api/pipeline/${setup.taskId}/cancel`)).status).toBe(200);
      expect((await bob.check([main])).status).toBe('OK');
      expect((await bob.post([main], 'WRITING', 'Bob takes the helper too.')).success).toBe(true);
    },
    LONG_TEST_MS,
  );

  it(
    'failure releases the locks: a run whose reviews keep failing ends failed and frees its files',
    async () => {
      const setup = await newTask(t, { coderEngine: 'one-shot', title: 'Add welcome helper' });
      const carol = await agentOf(setup, 'Carol');
      const main = 'src/add-welcome-helper.ts';
      await startOk(setup.client, setup.taskId, { scenario: 'review-fails=3' });
      const failed = await until(setup, (r) => r.status !== 'running', 'the end');
      expect(failed.status).toBe('failed');
      expect((await carol.check([main])).status).toBe('OK');
      const events = await lockEventsOf(setup.projectId, setup.taskId);
      expect(events.map((e) => e.type)).toContain('lock-taken');
      expect(events.at(-1)).toMatchObject({ type: 'lock-released' });
    },
    LONG_TEST_MS,
  );
});
