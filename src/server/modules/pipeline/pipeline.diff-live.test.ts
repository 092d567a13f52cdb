import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DiffFileContent, RunDiff } from '@/contracts/diff.js';
import {
  createProxiedTestApp,
  gitIn,
  newTask,
  type ProxiedTestApp,
  post,
  repoOf,
  startOk,
  statusOf,
  type TaskSetup,
  WAIT_LIMIT_MS,
} from './testing/run-kit.js';

/** The diff API while a run is still coding, and after it is cancelled (pipeline.diff.test.ts: a passed run). */
let env: ProxiedTestApp;
beforeAll(async () => {
  env = await createProxiedTestApp();
});
afterAll(async () => env.close());

type ErrorBody = { error: string; message: string; [key: string]: unknown };
const diffOf = (setup: TaskSetup, runId: string) =>
  setup.client.get<RunDiff & ErrorBody>(`/api/pipeline/runs/${runId}/diff`);
const fileOf = (setup: TaskSetup, runId: string, filePath: string) =>
  setup.client.get<DiffFileContent & ErrorBody>(
    `/api/pipeline/runs/${runId}/diff/file?path=${encodeURIComponent(filePath)}`,
  );

describe('the diff of a run still coding, then cancelled', () => {
  let setup: TaskSetup;
  let runId: string;

  beforeAll(async () => {
    setup = await newTask(env.t, { coderEngine: 'one-shot', title: 'Add farewell helper' });
    // The second subtask's coder call hangs: the run stays in coding with one commit made.
    env.proxy.holdWhen(
      (seen) =>
        seen.agent === 'coder' &&
        env.proxy.requests.filter((r) => r.runId === seen.runId && r.agent === 'coder').length === 2,
    );
    runId = await startOk(setup.client, setup.taskId, {});
    await env.proxy.nextHeld();
  }, WAIT_LIMIT_MS);

  afterAll(() => {
    env.proxy.dropHeld();
    env.proxy.respondWith(undefined);
  });

  it('shows the commits made so far, head being the branch’s last commit', async () => {
    const run = await statusOf(setup.client, setup.taskId);
    expect(run).toMatchObject({ status: 'running', phase: 'coding' });
    const repoPath = (await repoOf(env.t, setup.projectId)).repoPath;
    const tip = (await gitIn(repoPath, ['rev-parse', `refs/heads/${run.branch}`])).trim();
    const res = await diffOf(setup, runId);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ runId, baseCommit: run.baseCommit, headCommit: tip });
    expect(res.body.files.length).toBeGreaterThan(0);
    expect(res.body.files.every((f) => f.status === 'added')).toBe(true);
    expect(res.body.generalFindings).toEqual([]);
    const first = res.body.files[0];
    const content = await fileOf(setup, runId, first?.path ?? '');
    expect(content.status).toBe(200);
    expect(content.body.after).toBe(await gitIn(repoPath, ['show', `${tip}:${first?.path}`]));
  });

  it('still answers once the run is cancelled, from its branch', async () => {
    const before = await diffOf(setup, runId);
    const cancelled = await post(setup.client, `/api/pipeline/${setup.taskId}/cancel`);
    expect(cancelled.status).toBe(200);
    env.proxy.dropHeld();
    await env.t.deps.orchestrator.idle();
    expect((await statusOf(setup.client, setup.taskId)).status).toBe('cancelled');
    const after = await diffOf(setup, runId);
    expect(after.status).toBe(200);
    expect(after.body.headCommit).toBe(before.body.headCommit);
    expect(after.body.files.map((f) => f.path)).toEqual(before.body.files.map((f) => f.path));
  });
});
