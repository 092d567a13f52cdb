import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openGitObjectReaderDirs } from '@/server/lib/git-objects.js';
import { createTestApp, type TestApp } from '@/server/testing/test-app.js';
import { newTask, startOk, statusOf } from './testing/run-kit.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

describe('git processes of a run', () => {
  it('starts no cat-file reader for its worktree (one would be spawned on the server thread)', async () => {
    const { client, taskId } = await newTask(t);
    await startOk(client, taskId);
    await t.deps.orchestrator.idle();
    const run = await statusOf(client, taskId);
    expect(run.status).toBe('passed');
    // Readers close after 15 s idle: the run just ended, so one it had opened would still be here.
    expect(openGitObjectReaderDirs().filter((dir) => dir.includes(`${t.deps.dataDir}/worktrees`))).toEqual(
      [],
    );
  });
});

describe('database writes of a run', () => {
  it('stays within a fixed budget per run besides the batched event inserts', async () => {
    const { client, taskId } = await newTask(t);
    await t.deps.events.flush();
    const writesBefore = t.deps.dbStats.writes;
    const batchesBefore = t.deps.events.stats.writes;
    await startOk(client, taskId);
    await t.deps.orchestrator.idle();
    await t.deps.events.flush();
    const run = await statusOf(client, taskId);
    expect(run.status).toBe('passed');
    const subtasks = run.subtasks.length;
    const runWrites = t.deps.dbStats.writes - writesBefore - (t.deps.events.stats.writes - batchesBefore);
    // start: run insert + task → spec; plan: phase, result, task subtasks; code: task → building,
    // first phase write, one per subtask; review: phase, verdict; end: task → review, and the
    // run's locks recorded once (it keeps them through Review; a restart takes them again).
    expect(runWrites).toBeLessThanOrEqual(11 + subtasks);
  });
});
