// @vitest-environment happy-dom
import { act, cleanup, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LockWaitData, PipelineRunDetail, StoredEvent } from '@/contracts/pipeline';
import { diffFile, runDiffOf } from '@/web/testing/diff-fixtures';
import { FakeEventSource } from '@/web/testing/fake-event-source';
import { type StubRequest, stubFetch } from '@/web/testing/fetch-stub';
import { renderAt } from '@/web/testing/render';
import { plan, runDetail, runEvents } from '@/web/testing/run-fixtures';
import { usePipelineStore } from '../stores/pipeline-store';
import { PipelinePanel } from './pipeline-panel';
import { TaskPhaseBadge } from './task-phase-badge';

const T = 'task-1';
const e = runEvents('run-1', T);
let server: PipelineRunDetail & { runId: string };
let requests: StubRequest[];

beforeEach(() => {
  usePipelineStore.setState({ tasks: {}, summaries: {}, lockWaits: {}, runSteps: {} });
  FakeEventSource.all = [];
  vi.stubGlobal('EventSource', FakeEventSource);
  const run = runDetail({ taskId: T, phase: 'planning' });
  server = { ...run, runId: run.id };
  ({ requests } = stubFetch({
    [`GET /api/pipeline/${T}/status`]: () => server,
    'GET /api/pipeline/runs/run-1/diff': runDiffOf([diffFile({ path: 'src/greet.ts', status: 'added' })]),
    'GET /api/pipeline/runs/run-1/comments': { comments: [] },
  }));
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const stepper = () => screen.getByTestId('phase-stepper');
const steps = () =>
  Object.fromEntries(
    within(stepper())
      .getAllByRole('listitem')
      .map((step) => [step.dataset.step, step.dataset.state]),
  );
const order = () =>
  within(stepper())
    .getAllByRole('listitem')
    .map((step) => step.dataset.step);
const detail = (key: string) => screen.getByTestId(`phase-step-detail-${key}`).textContent;

function send(...events: StoredEvent[]) {
  const source = FakeEventSource.find(`/api/sse/${T}`);
  if (!source) throw new Error('the panel opened no task stream');
  act(() => {
    for (const event of events) source.send(event.type, event.data, event.id);
  });
}

const lockWait = (id: number, until: number | null): StoredEvent => ({
  id,
  type: 'lock-wait',
  data: {
    runId: 'run-1',
    taskId: T,
    path: 'src/greet.ts',
    holder: { id: 'tok-1', name: 'Alice’s agent' },
    until,
    timestamp: 1_000 + id,
  },
});

async function openPanel(taskStatus: 'spec' | 'building' | 'review' = 'building') {
  renderAt(<PipelinePanel taskId={T} taskStatus={taskStatus} />);
  await waitFor(() => expect(stepper().dataset.phase).toBe('planning'));
}

describe('the phase stepper tells the truth', () => {
  it('shows the setup, then the check as the current step while it runs, its failure, and the fix', async () => {
    await openPanel();
    expect(order()).toEqual(['planning', 'coding', 'reviewing', 'fixing', 'outcome']);

    send(e.setupLog(1, 'npm ci\n'));
    // Output is applied once per frame.
    await waitFor(() => expect(order()[0]).toBe('setup'));
    expect(steps()).toMatchObject({ setup: 'current', planning: 'upcoming' });
    expect(detail('setup')).toBe('running');
    send(e.setupResult(2, { exitCode: null, cache: 'hit' }));
    expect(steps()).toMatchObject({ setup: 'complete', planning: 'current' });
    expect(detail('setup')).toBe('from cache');

    send(
      e.update(3, { phase: 'coding', subtask: { index: 2, total: 2 } }),
      e.phase(4, 'coding', 'running', 0, { index: 2, total: 2, title: plan[1]!.title }),
      e.checkLog(5, 'running tests\n'),
    );
    await waitFor(() => expect(order()).toContain('check'));
    // The check runs: Coding is done, Check is where the run is.
    expect(order()).toEqual(['setup', 'planning', 'coding', 'check', 'reviewing', 'fixing', 'outcome']);
    expect(steps()).toMatchObject({ coding: 'complete', check: 'current', reviewing: 'upcoming' });
    expect(detail('check')).toBe('running');

    send(e.checkResult(6, { exitCode: 1, durationMs: 2_100 }), e.update(7, { phase: 'reviewing' }));
    send(e.phase(8, 'reviewing'));
    expect(steps()).toMatchObject({ check: 'failed', reviewing: 'current' });
    expect(detail('check')).toBe('exit 1 · 2.1 s');

    // The failed check failed the review: the run fixes, and Reviewing is not green.
    server = { ...server, reviewScore: 88, reviewFindings: { passed: false, score: 88, findings: [] } };
    send(
      e.update(9, { phase: 'fixing', iteration: 1, reviewScore: 88 }),
      e.phase(10, 'fixing', 'running', 1),
    );
    expect(steps()).toMatchObject({ check: 'failed', reviewing: 'rejected', fixing: 'current' });
    // The same attempt numbers as the log's "auto-fixing (attempt 1/2)".
    expect(detail('fixing')).toBe('1/2');
    await waitFor(() => expect(detail('reviewing')).toContain('check failed'));

    send(e.checkLog(11, 'running tests again\n'));
    await waitFor(() => expect(within(stepper()).queryByText('Check #2')).toBeTruthy());
    expect(steps()).toMatchObject({ check: 'current', fixing: 'complete', reviewing: 'rejected' });
    expect(within(stepper()).getByText('Check #2')).toBeTruthy();
    send(e.checkResult(12, { exitCode: 0, durationMs: 900 }), e.phase(13, 'reviewing', 'running', 1));
    expect(steps()).toMatchObject({ check: 'complete', reviewing: 'current' });
    expect(detail('check')).toBe('passed · 0.9 s');
  });

  it('says which lock the run waits for, who holds it and for how long, and stops saying it once the wait ends', async () => {
    await openPanel();
    send(
      e.update(1, { phase: 'coding', subtask: { index: 1, total: 2 } }),
      e.phase(2, 'coding', 'running', 0, { index: 1, total: 2, title: plan[0]!.title }),
      lockWait(3, Date.now() + 3_600_000),
    );
    const notice = screen.getByTestId('lock-wait');
    expect(notice.textContent).toContain('Waiting for src/greet.ts — held by Alice’s agent');
    expect(screen.getByTestId('lock-wait-countdown').textContent).toMatch(/^· \d+ s left$/);
    expect(detail('coding')).toBe('waiting for a lock');

    send(lockWait(4, null));
    expect(screen.queryByTestId('lock-wait')).toBeNull();
    expect(detail('coding')).toBe('1/2');

    // A wait given up pauses the run: nothing says it still waits.
    send(lockWait(5, Date.now() + 3_600_000));
    expect(screen.getByTestId('lock-wait')).toBeTruthy();
    send(
      e.error(6, { type: 'lock_conflict', message: 'src/greet.ts is being written', statusCode: undefined }),
    );
    expect(screen.queryByTestId('lock-wait')).toBeNull();
  });

  it('offers one Retry and one Cancel for a paused run', async () => {
    await openPanel();
    send(e.update(1, { phase: 'paused', status: 'paused' }), e.error(2), e.phase(3, 'paused', 'paused'));
    expect(screen.getByTestId('error-notification')).toBeTruthy();
    expect(screen.getAllByRole('button', { name: /^retry/i })).toHaveLength(1);
    expect(screen.getAllByRole('button', { name: /cancel pipeline/i })).toHaveLength(1);
    expect(screen.getByTestId('btn-retry-pipeline').textContent).toBe('Retry (1/3)');
  });

  it('shows the checks in the run summary: the last one’s verdict, exit code, time, and how many ran', async () => {
    server = {
      ...runDetail({
        taskId: T,
        phase: 'completed',
        status: 'passed',
        headCommit: 'c2',
        reviewScore: 92,
        reviewFindings: { passed: true, score: 92, findings: [] },
      }),
      runId: 'run-1',
    };
    renderAt(<PipelinePanel taskId={T} taskStatus="review" />);
    await screen.findByTestId('review-summary', {}, { timeout: 10_000 });
    expect(screen.queryByTestId('review-checks')).toBeNull();
    send(
      e.checkLog(1, 'x'),
      e.checkResult(2, { exitCode: 1, durationMs: 2_000 }),
      e.checkLog(3, 'x'),
      e.checkResult(4, { exitCode: 0, durationMs: 1_500 }),
    );
    const tile = await screen.findByTestId('review-checks');
    expect(tile.textContent).toContain('passed');
    expect(tile.textContent).toContain('exit 0 · 1.5 s · 2 runs');
    expect(requests.length).toBeGreaterThan(0);
  });
});

const cardRun = {
  id: 'run-1',
  taskId: T,
  phase: 'coding' as const,
  status: 'running' as const,
  iteration: 0,
  simulated: false,
  subtask: { index: 3, total: 3 },
  roundStart: 0,
  startedAt: new Date(0).toISOString(),
};

describe('the card of a run setting up or checking', () => {
  it('says Setting up… and Checking… while the project stream says so, then the phase again', () => {
    renderAt(<TaskPhaseBadge taskId={T} taskStatus="building" run={cardRun} />);
    const badge = () => screen.getByTestId('task-phase-badge').textContent;
    expect(badge()).toBe('Pipeline: Coding 3/3');
    const step = { runId: 'run-1', taskId: T, timestamp: 1 };
    act(() => usePipelineStore.getState().setRunStep({ ...step, step: 'setup', running: true }));
    expect(badge()).toBe('Pipeline: Setting up…');
    act(() =>
      usePipelineStore
        .getState()
        .setRunStep({ ...step, step: 'setup', running: false, passed: true, timestamp: 2 }),
    );
    expect(badge()).toBe('Pipeline: Coding 3/3');
    act(() =>
      usePipelineStore.getState().setRunStep({ ...step, step: 'check', running: true, timestamp: 3 }),
    );
    expect(badge()).toBe('Pipeline: Checking…');
    // An older event arriving late changes nothing; another run's step is not this card's.
    act(() =>
      usePipelineStore.getState().setRunStep({ ...step, step: 'check', running: false, timestamp: 2 }),
    );
    expect(badge()).toBe('Pipeline: Checking…');
    act(() =>
      usePipelineStore
        .getState()
        .setRunStep({ ...step, runId: 'run-0', step: 'check', running: true, timestamp: 4 }),
    );
    expect(badge()).toBe('Pipeline: Coding 3/3');
  });

  it('shows the outcome, not the step, once the run ended', () => {
    act(() =>
      usePipelineStore
        .getState()
        .setRunStep({ runId: 'run-1', taskId: T, step: 'check', running: true, timestamp: 1 }),
    );
    renderAt(<TaskPhaseBadge taskId={T} taskStatus="spec" run={{ ...cardRun, status: 'paused' }} />);
    expect(screen.getByTestId('task-phase-badge').textContent).toBe('Pipeline: Paused');
  });
});

describe('the card of a run waiting for a lock', () => {
  it('says so with its countdown, from the project stream, while the run is active', () => {
    const wait: LockWaitData = {
      runId: 'run-1',
      taskId: T,
      path: 'src/greet.ts',
      holder: { id: 'tok-1', name: 'Alice’s agent' },
      until: Date.now() + 3_600_000,
      timestamp: 1,
    };
    const card = { ...cardRun, subtask: { index: 1, total: 3 } };
    renderAt(<TaskPhaseBadge taskId={T} taskStatus="building" run={card} />);
    expect(screen.queryByTestId('card-lock-wait')).toBeNull();
    act(() => usePipelineStore.getState().setLockWait(wait));
    expect(screen.getByTestId('card-lock-wait').textContent).toContain(
      'Waiting for src/greet.ts — held by Alice’s agent',
    );
    expect(screen.getByTestId('card-lock-wait-countdown').textContent).toMatch(/\d+ s left/);
    act(() => usePipelineStore.getState().setLockWait({ ...wait, until: null, timestamp: 2 }));
    expect(screen.queryByTestId('card-lock-wait')).toBeNull();
  });
});
