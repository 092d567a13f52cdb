import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SetupResultData, StoredEvent } from '@/contracts/pipeline.js';
import type { ProjectSetupInfo } from '@/contracts/projects.js';
import {
  gitIn,
  LONG_TEST_MS,
  newTask,
  post,
  projectEvents,
  repoOf,
  runEnded,
  startOk,
  taskEvents,
  untilRun,
} from '@/server/modules/pipeline/testing/run-kit.js';
import { pidsRunning } from '@/server/modules/sandbox/sandbox-testing.js';
import { commitFiles } from '@/server/modules/workspace/test-repo.js';
import { createTestApp, signedInClient, type TestApp } from '@/server/testing/test-app.js';

/**
 * A project's setup command through the real app: run in the sandbox in each run's worktree
 * before its first step, its output on the task's stream, its result cached by the lockfile.
 * The "install" here is a shell command that makes node_modules from the lockfile (no network).
 */
const INSTALL = 'mkdir node_modules && cp package-lock.json node_modules/.installed && echo installed';
const CHECK = 'test -f node_modules/.installed';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const until = untilRun;
const ended = runEnded;
const setupResults = (events: StoredEvent[]) =>
  events.flatMap((e) => (e.type === 'setup-result' ? [e.data as SetupResultData] : []));

/** A fresh user whose project has a lockfile, the install as its setup command and a check that needs it. */
async function projectWithLockfile(lockfile = '{"lockfileVersion":3}\n', setupCommand = INSTALL) {
  const first = await newTask(t, { title: 'Add greeting helper' });
  const repo = await repoOf(t, first.projectId);
  await commitFiles(
    repo.repoPath,
    { 'package.json': '{"name":"app"}\n', 'package-lock.json': lockfile },
    'Lockfile',
  );
  const set = await first.client.patch(`/api/projects/${first.projectId}`, {
    setupCommand,
    checkCommand: CHECK,
  });
  expect(set.status).toBe(200);
  return { first, repo };
}

describe('a worktree that can run the project', () => {
  it(
    'proposes npm ci from the lockfile, installs in the first run (logged), restores the second from the cache, never commits node_modules',
    async () => {
      const user = await signedInClient(t.app);
      const repo = await repoOf(t, user.projectId);
      await commitFiles(repo.repoPath, { 'package-lock.json': '{}\n' }, 'Lockfile');
      const proposed = await user.client.get<ProjectSetupInfo>(`/api/projects/${user.projectId}/setup`);
      expect(proposed.body).toMatchObject({
        setupCommand: null,
        proposal: { command: 'npm ci', because: 'package-lock.json' },
        cache: { entries: [] },
      });

      const { first, repo: project } = await projectWithLockfile();
      await startOk(first.client, first.taskId);
      const one = await until(first, ended, 'the first run');
      expect(one.status).toBe('passed');
      const firstEvents = await taskEvents(t, first.taskId);
      expect(setupResults(firstEvents)).toMatchObject([
        { passed: true, cache: 'miss', paths: ['node_modules'] },
      ]);
      const log = firstEvents.flatMap((e) => (e.type === 'setup-log' ? [e.data.chunk] : [])).join('');
      expect(log).toContain('installed');
      // The board's stream said a setup ran, then that it passed; the check after it too.
      const steps = (await projectEvents(t, first.projectId)).flatMap((e) =>
        e.type === 'run-step' && e.data.taskId === first.taskId
          ? [`${e.data.step} ${e.data.running ? 'running' : e.data.passed}`]
          : [],
      );
      expect(steps.slice(0, 4)).toEqual(['setup running', 'setup true', 'check running', 'check true']);
      // The setup came first: before the planner said anything.
      const setupAt = firstEvents.findIndex((e) => e.type === 'setup-result');
      const plannerAt = firstEvents.findIndex((e) => e.type === 'agent-log' && e.data.agent === 'planner');
      expect(setupAt).toBeLessThan(plannerAt);
      const tracked = await gitIn(project.repoPath, ['ls-tree', '-r', '--name-only', one.branch ?? '']);
      expect(tracked).toContain('package-lock.json');
      expect(tracked).not.toContain('node_modules');

      const second = await newTask(t, { title: 'Add farewell helper', user: first });
      await startOk(second.client, second.taskId);
      const two = await until(second, ended, 'the second run');
      expect(two.status).toBe('passed');
      expect(setupResults(await taskEvents(t, second.taskId))).toMatchObject([
        { passed: true, cache: 'hit', paths: ['node_modules'] },
      ]);
      const info = await first.client.get<ProjectSetupInfo>(`/api/projects/${first.projectId}/setup`);
      expect(info.body).toMatchObject({ setupCommand: INSTALL, proposal: null });
      expect(info.body.cache.entries).toHaveLength(1);
      expect(info.body.cache.bytes).toBeGreaterThan(0);

      const cleared = await first.client.request('DELETE', `/api/projects/${first.projectId}/setup/cache`);
      expect(cleared.status).toBe(204);
      const after = await first.client.get<ProjectSetupInfo>(`/api/projects/${first.projectId}/setup`);
      expect(after.body.cache.entries).toEqual([]);
      const stranger = await signedInClient(t.app);
      expect((await stranger.client.get(`/api/projects/${first.projectId}/setup`)).status).toBe(404);
      expect(
        (await stranger.client.request('DELETE', `/api/projects/${first.projectId}/setup/cache`)).status,
      ).toBe(404);
    },
    LONG_TEST_MS,
  );

  it(
    'installs once for two runs started together with one new key, and again for a changed lockfile',
    async () => {
      const { first } = await projectWithLockfile('{"lockfileVersion":3,"v":"together"}\n');
      const second = await newTask(t, { title: 'Add farewell helper', user: first });
      await Promise.all([startOk(first.client, first.taskId), startOk(second.client, second.taskId)]);
      expect((await until(first, ended, 'the first run')).status).toBe('passed');
      expect((await until(second, ended, 'the second run')).status).toBe('passed');
      const caches = [
        ...setupResults(await taskEvents(t, first.taskId)),
        ...setupResults(await taskEvents(t, second.taskId)),
      ].map((result) => result.cache);
      expect(caches.sort()).toEqual(['hit', 'miss']);

      const repo = await repoOf(t, first.projectId);
      await commitFiles(
        repo.repoPath,
        { 'package-lock.json': '{"lockfileVersion":3,"v":"changed"}\n' },
        'Bump',
      );
      const third = await newTask(t, { title: 'Add a third helper', user: first });
      await startOk(third.client, third.taskId);
      await until(third, ended, 'the third run');
      expect(setupResults(await taskEvents(t, third.taskId))).toMatchObject([
        { cache: 'miss', passed: true },
      ]);
    },
    LONG_TEST_MS,
  );

  it(
    'keeps a project’s package-manager cache between its installs, and apart from other projects',
    async () => {
      const count =
        'mkdir node_modules && echo "downloads seen: $(cat "$npm_config_cache/log" 2>/dev/null | wc -l)" && mkdir -p "$npm_config_cache" && echo x >> "$npm_config_cache/log"';
      const logOf = async (taskId: string) =>
        (await taskEvents(t, taskId)).flatMap((e) => (e.type === 'setup-log' ? [e.data.chunk] : [])).join('');
      const { first, repo } = await projectWithLockfile('{"v":"pm-1"}\n', count);
      await startOk(first.client, first.taskId);
      await until(first, ended, 'the first run');
      expect(await logOf(first.taskId)).toContain('downloads seen: 0');

      await commitFiles(repo.repoPath, { 'package-lock.json': '{"v":"pm-2"}\n' }, 'Bump');
      const second = await newTask(t, { title: 'Add farewell helper', user: first });
      await startOk(second.client, second.taskId);
      await until(second, ended, 'the second run');
      expect(await logOf(second.taskId)).toContain('downloads seen: 1');

      const { first: other } = await projectWithLockfile('{"v":"pm-1"}\n', count);
      await startOk(other.client, other.taskId);
      await until(other, ended, 'the other project’s run');
      expect(await logOf(other.taskId)).toContain('downloads seen: 0');
    },
    LONG_TEST_MS,
  );

  it(
    'pauses a run whose setup fails with setup_failed and its output, caches nothing of it, and Retry runs it again',
    async () => {
      const { first } = await projectWithLockfile(
        '{"lockfileVersion":3,"v":"failing"}\n',
        'mkdir node_modules && echo "npm ERR! could not resolve" >&2 && exit 3',
      );
      await startOk(first.client, first.taskId);
      const paused = await until(first, (run) => run.status === 'paused', 'the pause');
      expect(paused.errorDetails).toMatchObject({ type: 'setup_failed', retryable: true });
      expect(paused.errorDetails?.message).toContain('exit code 3');
      expect(paused.errorDetails?.message).toContain('could not resolve');
      const info = await first.client.get<ProjectSetupInfo>(`/api/projects/${first.projectId}/setup`);
      expect(info.body.cache.entries).toEqual([]);

      expect(
        (
          await first.client.patch(`/api/projects/${first.projectId}`, {
            setupCommand: `rm -rf node_modules && ${INSTALL}`,
          })
        ).status,
      ).toBe(200);
      expect((await post(first.client, `/api/pipeline/${first.taskId}/retry`)).status).toBe(202);
      const run = await until(first, ended, 'the end');
      expect(run.status).toBe('passed');
      expect(setupResults(await taskEvents(t, first.taskId)).map((r) => r.passed)).toEqual([false, true]);
    },
    LONG_TEST_MS,
  );

  it(
    'stops a setup at its time limit and leaves none of its processes behind',
    async () => {
      const token = `sleep ${800_000 + Math.floor(Math.random() * 9999)}`;
      const { first } = await projectWithLockfile(
        '{"v":"slow"}\n',
        `mkdir node_modules && (${token} &) && echo started && exec sleep 600`,
      );
      expect(
        (await first.client.patch(`/api/projects/${first.projectId}`, { setupTimeoutSeconds: 10 })).status,
      ).toBe(200);
      await startOk(first.client, first.taskId);
      const paused = await until(first, (run) => run.status === 'paused', 'the pause');
      expect(paused.errorDetails).toMatchObject({ type: 'setup_failed' });
      expect(paused.errorDetails?.message).toContain('time limit (10 s)');
      expect(await pidsRunning(token)).toEqual([]);
      const info = await first.client.get<ProjectSetupInfo>(`/api/projects/${first.projectId}/setup`);
      expect(info.body.cache.entries).toEqual([]);
    },
    LONG_TEST_MS,
  );
});
