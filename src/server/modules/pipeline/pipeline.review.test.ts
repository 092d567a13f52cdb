import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '@/server/testing/test-app.js';
import {
  callsBy,
  commitSubjects,
  createProxiedTestApp,
  LONG_TEST_MS,
  newTask,
  type ProxiedTestApp,
  phaseSequence,
  post,
  repoOf,
  runRow,
  runToEnd,
  statusOf,
  taskEvents,
  taskStatusOf,
  taskStatusSequence,
} from './testing/run-kit.js';

let app: ProxiedTestApp;
let t: TestApp;

beforeAll(async () => {
  app = await createProxiedTestApp();
  ({ t } = app);
});
afterAll(() => app.close());

const requestsOf = (runId: string, agent: string) => app.requestsOf(runId, agent);

describe('auto-fix after a failed review', () => {
  it(
    'review-fails=1: fixes once (task stays in Building), passes at iteration 1 with a fix commit',
    async () => {
      const { client, taskId, projectId } = await newTask(t);
      const run = await runToEnd(t, client, taskId, { scenario: 'review-fails=1' });
      expect(run).toMatchObject({ status: 'passed', phase: 'completed', iteration: 1 });
      expect(callsBy(run, 'reviewer')).toBe(2);
      expect(callsBy(run, 'coder')).toBe(run.subtasks.length + 1);

      const { repoPath } = await repoOf(t, projectId);
      const subjects = await commitSubjects(repoPath, `${run.baseCommit}..${run.branch}`);
      expect(subjects).toHaveLength(run.subtasks.length + 1);
      expect(subjects[0]).toBe('Fix review findings');

      const events = await taskEvents(t, taskId);
      expect(phaseSequence(events)).toEqual([
        'planning',
        'coding',
        'reviewing',
        'fixing',
        'reviewing',
        'completed',
      ]);
      expect(taskStatusSequence(events)).toEqual(['spec', 'building', 'review']);
      const fixing = events.find((e) => e.type === 'phase-change' && e.data.phase === 'fixing');
      expect(fixing?.type === 'phase-change' && fixing.data.iteration).toBe(1);
      expect(
        events.some(
          (e) => e.type === 'agent-log' && e.data.agent === 'coder' && e.data.chunk.includes('attempt 1/2'),
        ),
      ).toBe(true);

      // The coder was shown the reviewer's findings.
      const fixPrompt = requestsOf(run.runId, 'coder').at(-1)?.prompt ?? '';
      expect(fixPrompt).toContain('Mode: fix (iteration 1)');
      expect(fixPrompt).toContain('## Review findings (score 55/100)');
      expect(fixPrompt).toContain('must reject blank input');
    },
    LONG_TEST_MS,
  );

  it(
    'review-fails=3: fails after three reviews (iteration 2), task back to Backlog, branch kept',
    async () => {
      const { client, taskId, projectId } = await newTask(t);
      const run = await runToEnd(t, client, taskId, { scenario: 'review-fails=3' });
      expect(run).toMatchObject({ status: 'failed', phase: 'failed', iteration: 2 });
      expect(run.completedAt).not.toBeNull();
      expect(callsBy(run, 'reviewer')).toBe(3);
      expect(run.reviewFindings?.passed).toBe(false);
      expect(await taskStatusOf(client, taskId)).toBe('backlog');

      const events = await taskEvents(t, taskId);
      expect(phaseSequence(events)).toEqual([
        'planning',
        'coding',
        'reviewing',
        'fixing',
        'reviewing',
        'fixing',
        'reviewing',
        'failed',
      ]);
      expect(taskStatusSequence(events)).toEqual(['spec', 'building', 'backlog']);
      const complete = events.at(-1);
      expect(complete?.type).toBe('pipeline-complete');
      expect(complete?.type === 'pipeline-complete' && complete.data).toMatchObject({
        result: 'failed',
        reviewFindings: { passed: false },
      });

      const { repoPath } = await repoOf(t, projectId);
      const subjects = await commitSubjects(repoPath, `${run.baseCommit}..${run.branch}`);
      expect(subjects.slice(0, 2)).toEqual(['Fix review findings', 'Fix review findings']);
      const row = await runRow(t, run.runId);
      expect(row.worktreePath && existsSync(row.worktreePath)).toBe(false);
    },
    LONG_TEST_MS,
  );
});

describe('request changes', () => {
  it(
    'sends the task back to coding with the feedback, then to Review again',
    async () => {
      const { client, taskId, projectId } = await newTask(t, { title: 'Greet politely' });
      const first = await runToEnd(t, client, taskId);
      expect(first.status).toBe('passed');
      const seenBefore = (await taskEvents(t, taskId)).length;
      const coderCallsBefore = requestsOf(first.runId, 'coder').length;

      const feedback = 'Please also greet in French (Bonjour) when the locale is fr.';
      const res = await post<{ runId: string; iteration: number }>(
        client,
        `/api/pipeline/${taskId}/request-changes`,
        { feedback },
      );
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ runId: first.runId, iteration: 1 });
      await t.deps.orchestrator.idle();

      const run = await statusOf(client, taskId);
      expect(run).toMatchObject({ runId: first.runId, status: 'passed', phase: 'completed', iteration: 1 });
      expect(await taskStatusOf(client, taskId)).toBe('review');
      expect(callsBy(run, 'coder')).toBe(callsBy(first, 'coder') + 1);
      expect(callsBy(run, 'planner')).toBe(1);

      const { repoPath } = await repoOf(t, projectId);
      const subjects = await commitSubjects(repoPath, `${run.baseCommit}..${run.branch}`);
      expect(subjects[0]).toBe('Address review feedback');
      expect(subjects).toHaveLength(first.subtasks.length + 1);
      expect(run.headCommit).not.toBe(first.headCommit);

      // The coder was asked with the person's words, and the reviewer saw them too.
      const coderPrompts = requestsOf(run.runId, 'coder').slice(coderCallsBefore);
      expect(coderPrompts).toHaveLength(1);
      expect(coderPrompts[0]?.prompt).toContain('## Feedback from the person reviewing');
      expect(coderPrompts[0]?.prompt).toContain(feedback);
      expect(requestsOf(run.runId, 'reviewer').at(-1)?.prompt).toContain(feedback);

      const round = (await taskEvents(t, taskId)).slice(seenBefore);
      expect(taskStatusSequence(round)).toEqual(['building', 'review']);
      expect(phaseSequence(round)).toEqual(['coding', 'reviewing', 'completed']);
      for (const e of round) {
        if (e.type === 'phase-change') expect(e.data.iteration).toBe(1);
      }
      expect(round.at(-1)).toMatchObject({ type: 'pipeline-complete', data: { result: 'passed' } });

      // Approving now merges the feedback commit too.
      expect((await post(client, `/api/pipeline/${taskId}/approve`)).status).toBe(200);
      expect(await taskStatusOf(client, taskId)).toBe('done');
      const main = await commitSubjects(repoPath, 'main');
      expect(main).toContain('Address review feedback');
    },
    LONG_TEST_MS,
  );

  it(
    'gives the feedback round its own automatic fixes: a failed review after the feedback is fixed too',
    async () => {
      const { client, taskId, projectId } = await newTask(t, { title: 'Greet in several languages' });
      const first = await runToEnd(t, client, taskId);
      expect(first.status).toBe('passed');
      // The simulated reviewer now fails review iteration 1 (the feedback's) and passes iteration 2.
      const res = await post(client, `/api/pipeline/${taskId}/request-changes`, {
        feedback: 'Add Spanish too.',
        scenario: 'review-fails=2',
      });
      expect(res.status).toBe(202);
      await t.deps.orchestrator.idle();
      const run = await statusOf(client, taskId);
      expect(run).toMatchObject({ status: 'passed', iteration: 2 });
      expect(callsBy(run, 'reviewer')).toBe(3);
      const { repoPath } = await repoOf(t, projectId);
      const subjects = await commitSubjects(repoPath, `${first.headCommit}..${run.branch}`);
      expect(subjects).toEqual(['Fix review findings', 'Address review feedback']);
      expect(await taskStatusOf(client, taskId)).toBe('review');
    },
    LONG_TEST_MS,
  );

  it(
    'refuses empty or overlong feedback (400 VALIDATION_ERROR) without touching the run',
    async () => {
      const { client, taskId } = await newTask(t);
      const run = await runToEnd(t, client, taskId);
      for (const body of [{}, { feedback: '' }, { feedback: '   ' }, { feedback: 'x'.repeat(5001) }]) {
        const res = await post(client, `/api/pipeline/${taskId}/request-changes`, body);
        expect(res.status).toBe(400);
        expect(res.body.error).toBe('VALIDATION_ERROR');
      }
      expect(await statusOf(client, taskId)).toMatchObject({ status: 'passed', iteration: run.iteration });
      expect(await taskStatusOf(client, taskId)).toBe('review');
    },
    LONG_TEST_MS,
  );

  it(
    'refuses a task that is not in Review (400 INVALID_PIPELINE_STATE)',
    async () => {
      const { client, taskId } = await newTask(t);
      const res = await post(client, `/api/pipeline/${taskId}/request-changes`, { feedback: 'More tests' });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('INVALID_PIPELINE_STATE');

      await runToEnd(t, client, taskId, { scenario: 'error=500@coder' });
      const paused = await post(client, `/api/pipeline/${taskId}/request-changes`, {
        feedback: 'More tests',
      });
      expect(paused.status).toBe(400);
      expect(paused.body.error).toBe('INVALID_PIPELINE_STATE');
    },
    LONG_TEST_MS,
  );
});
