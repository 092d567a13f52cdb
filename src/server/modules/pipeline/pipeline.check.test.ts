import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckLogData, CheckResultData, RunStepData, StoredEvent } from '@/contracts/pipeline.js';
import { CHECK_FINDING_FILE } from '@/contracts/run-lifecycle.js';
import { pidsRunning } from '@/server/modules/sandbox/sandbox-testing.js';
import { createTestApp } from '@/server/testing/test-app.js';
import {
  createProxiedTestApp,
  gitIn,
  LONG_TEST_MS,
  newTask,
  type ProxiedTestApp,
  phaseSequence,
  post,
  projectEvents,
  repoOf,
  runToEnd,
  startOk,
  statusOf,
  type TaskSetup,
  taskEvents,
  waitForEvent,
} from './testing/run-kit.js';

let app: ProxiedTestApp;
beforeAll(async () => {
  app = await createProxiedTestApp();
});
afterAll(() => app.close());

/** A check script committed on the project's default branch, and the project's check set to run it. */
async function withCheck(
  setup: TaskSetup,
  script: string,
  settings: { checkCommand?: string; checkTimeoutSeconds?: number } = {},
) {
  const repo = await repoOf(app.t, setup.projectId);
  await writeFile(path.join(repo.repoPath, 'check.sh'), script);
  await gitIn(repo.repoPath, ['add', 'check.sh']);
  await gitIn(repo.repoPath, ['commit', '-q', '-m', 'Add the repository check']);
  const res = await setup.client.patch(`/api/projects/${setup.projectId}`, {
    checkCommand: 'sh check.sh',
    ...settings,
  });
  expect(res.status).toBe(200);
  return repo;
}

const checkLogs = (events: StoredEvent[]): CheckLogData[] =>
  events.flatMap((e) => (e.type === 'check-log' ? [e.data] : []));
const checkResults = (events: StoredEvent[]): CheckResultData[] =>
  events.flatMap((e) => (e.type === 'check-result' ? [e.data] : []));
const coderFixPrompts = (runId: string) =>
  app.requestsOf(runId, 'coder').filter((r) => /^Mode: fix/m.test(r.prompt));

const MISSING_FILE_CHECK = [
  'echo "checking for fixed.txt"',
  'if [ ! -f fixed.txt ]; then echo "fixed.txt is missing" >&2; exit 3; fi',
  'echo "all checks passed"',
  '',
].join('\n');

describe('a repository check that fails until the coder fixes it', () => {
  let setup: TaskSetup;
  let runId: string;
  let events: StoredEvent[];
  let repo: { repoPath: string };

  beforeAll(async () => {
    setup = await newTask(app.t, {
      coderEngine: 'one-shot',
      title: 'Make the check pass',
      description: 'The check wants a file. [simulate: check-fix=fixed.txt]',
    });
    repo = await withCheck(setup, MISSING_FILE_CHECK);
    const run = await runToEnd(app.t, setup.client, setup.taskId);
    runId = run.runId;
    events = await taskEvents(app.t, setup.taskId);
  }, LONG_TEST_MS);

  it('passes after one fix, with the check run after coding and after the fix', async () => {
    const run = await statusOf(setup.client, setup.taskId);
    expect(run).toMatchObject({ status: 'passed', iteration: 1 });
    expect(phaseSequence(events)).toEqual([
      'planning',
      'coding',
      'reviewing',
      'fixing',
      'reviewing',
      'completed',
    ]);
    const results = checkResults(events);
    expect(results).toHaveLength(2);
    expect(results[0]).toMatchObject({ runId, passed: false, exitCode: 3, timedOut: false });
    expect(results[0]?.tail).toContain('fixed.txt is missing');
    expect(results[1]).toMatchObject({ runId, passed: true, exitCode: 0, timedOut: false });
    expect(results[1]?.tail).toContain('all checks passed');
    // The fix is on the run's branch.
    expect(await gitIn(repo.repoPath, ['show', `${run.branch}:fixed.txt`])).toContain('simulator');
  });

  it('streams the output as check-log events, stdout and stderr apart, before each result', () => {
    const firstResult = events.findIndex((e) => e.type === 'check-result');
    const before = checkLogs(events.slice(0, firstResult));
    expect(
      before
        .filter((l) => l.stream === 'stdout')
        .map((l) => l.chunk)
        .join(''),
    ).toBe('checking for fixed.txt\n');
    expect(
      before
        .filter((l) => l.stream === 'stderr')
        .map((l) => l.chunk)
        .join(''),
    ).toBe('fixed.txt is missing\n');
    // Each check runs after its step and before the review that judges it.
    const kinds = events
      .filter((e) => e.type === 'check-result' || (e.type === 'phase-change' && e.data.phase === 'reviewing'))
      .map((e) => e.type);
    expect(kinds).toEqual(['check-result', 'phase-change', 'check-result', 'phase-change']);
  });

  it("tells the board's stream when each check begins and how it ended (the card says Checking…)", async () => {
    const steps = (await projectEvents(app.t, setup.projectId)).flatMap((e) =>
      e.type === 'run-step' ? [e.data as RunStepData] : [],
    );
    expect(
      steps.map(({ runId: id, taskId, step, running, passed }) => ({ id, taskId, step, running, passed })),
    ).toEqual([
      { id: runId, taskId: setup.taskId, step: 'check', running: true, passed: undefined },
      { id: runId, taskId: setup.taskId, step: 'check', running: false, passed: false },
      { id: runId, taskId: setup.taskId, step: 'check', running: true, passed: undefined },
      { id: runId, taskId: setup.taskId, step: 'check', running: false, passed: true },
    ]);
    // Only the board's stream: the task's stream has the check's log and result.
    expect(events.some((e) => e.type === 'run-step')).toBe(false);
  });

  it('fails the first review although the reviewer passed it, and shows the fixing coder the tail', () => {
    // The simulated reviewer passes every review here; only the check can have failed the first.
    const reviews = app.requestsOf(runId, 'reviewer');
    expect(reviews).toHaveLength(2);
    expect(reviews[0]?.prompt).toContain('## Failing check');
    expect(reviews[1]?.prompt).toContain("The repository's own check passed.");
    const fixes = coderFixPrompts(runId);
    expect(fixes).toHaveLength(1);
    const prompt = fixes[0]?.prompt ?? '';
    expect(prompt).toContain('## Failing check');
    expect(prompt).toContain("The repository's check failed with exit code 3");
    expect(prompt).toContain('fixed.txt is missing');
    expect(prompt).toContain('checking for fixed.txt');
  });
});

describe('a repository check that keeps failing', () => {
  it(
    'fails the run after the third review, its last review carrying the check as an error finding',
    async () => {
      const setup = await newTask(app.t, { coderEngine: 'one-shot', title: 'Never green' });
      await withCheck(setup, 'echo "1 test failed: expected 2, got 3"; exit 1\n');
      const run = await runToEnd(app.t, setup.client, setup.taskId);
      expect(run).toMatchObject({ status: 'failed', iteration: 2 });
      expect(checkResults(await taskEvents(app.t, setup.taskId)).map((r) => r.passed)).toEqual([
        false,
        false,
        false,
      ]);
      expect(run.reviewFindings?.passed).toBe(false);
      expect(run.reviewFindings?.findings[0]).toMatchObject({
        severity: 'error',
        file: CHECK_FINDING_FILE,
      });
      expect(run.reviewFindings?.findings[0]?.message).toContain('1 test failed: expected 2, got 3');
      expect(coderFixPrompts(run.runId)).toHaveLength(2);
    },
    LONG_TEST_MS,
  );
});

describe('a check past its time limit', () => {
  it(
    'is stopped and fails with timedOut, and the coder is told so',
    async () => {
      const setup = await newTask(app.t, {
        coderEngine: 'one-shot',
        title: 'Slow until fixed',
        description: 'Hangs without the file. [simulate: check-fix=fixed.txt]',
      });
      await withCheck(setup, 'test -f fixed.txt || exec sleep 876543\n', { checkTimeoutSeconds: 10 });
      const run = await runToEnd(app.t, setup.client, setup.taskId);
      expect(run).toMatchObject({ status: 'passed', iteration: 1 });
      const results = checkResults(await taskEvents(app.t, setup.taskId));
      expect(results[0]).toMatchObject({ passed: false, timedOut: true, exitCode: null });
      expect(results[0]?.durationMs).toBeGreaterThanOrEqual(10_000);
      expect(results[1]).toMatchObject({ passed: true, timedOut: false, exitCode: 0 });
      expect(coderFixPrompts(run.runId)[0]?.prompt).toContain('was stopped at its time limit');
      expect(await pidsRunning('876543')).toEqual([]);
    },
    LONG_TEST_MS,
  );
});

describe('cancelling a run during its check', () => {
  it(
    'kills the check and everything it started, and tells no result',
    async () => {
      const setup = await newTask(app.t, { coderEngine: 'one-shot', title: 'Cancel the check' });
      await withCheck(setup, 'echo started; sleep 765432 & sleep 765431; wait\n');
      await startOk(setup.client, setup.taskId);
      await waitForEvent(
        app.t,
        setup.taskId,
        (e) => e.type === 'check-log' && e.data.chunk.includes('started'),
        'the check to start',
      );
      expect((await pidsRunning('sleep 76543')).length).toBeGreaterThan(0);
      expect((await post(setup.client, `/api/pipeline/${setup.taskId}/cancel`)).status).toBe(200);
      await app.t.deps.orchestrator.idle();
      expect(await pidsRunning('sleep 76543')).toEqual([]);
      const run = await statusOf(setup.client, setup.taskId);
      expect(run).toMatchObject({ status: 'cancelled' });
      expect(checkResults(await taskEvents(app.t, setup.taskId))).toEqual([]);
    },
    LONG_TEST_MS,
  );
});

describe('a project without a check command', () => {
  it(
    'runs no check: no check events, and the review alone decides',
    async () => {
      const setup = await newTask(app.t, { coderEngine: 'one-shot', title: 'No check here' });
      const run = await runToEnd(app.t, setup.client, setup.taskId);
      expect(run.status).toBe('passed');
      const events = await taskEvents(app.t, setup.taskId);
      expect(events.filter((e) => e.type === 'check-log' || e.type === 'check-result')).toEqual([]);
      const reviewerPrompt = app.requestsOf(run.runId, 'reviewer')[0]?.prompt;
      expect(reviewerPrompt).not.toContain('## Repository check');
      expect(reviewerPrompt).not.toContain('## Failing check');
    },
    LONG_TEST_MS,
  );
});

describe('a server that runs no repository code (AUTOCODER_SANDBOX=off)', () => {
  it(
    'fails a run whose project has a check, saying why, without a retry',
    async () => {
      const t = await createTestApp({ sandboxMode: 'off' });
      try {
        const setup = await newTask(t, { coderEngine: 'one-shot', title: 'Nowhere to check' });
        const set = await setup.client.patch(`/api/projects/${setup.projectId}`, { checkCommand: 'true' });
        expect(set.status).toBe(200);
        const run = await runToEnd(t, setup.client, setup.taskId);
        expect(run).toMatchObject({ status: 'failed', phase: 'failed' });
        expect(run.errorDetails).toMatchObject({ failedPhase: 'coding', retryable: false });
        expect(run.errorDetails?.message).toContain('AUTOCODER_SANDBOX=off');
        expect(checkResults(await taskEvents(t, setup.taskId))).toEqual([]);
      } finally {
        await t.close();
      }
    },
    LONG_TEST_MS,
  );
});
