// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PipelineRunDetail, StoredEvent } from '@/contracts/pipeline';
import { diffFile, runDiffOf } from '@/web/testing/diff-fixtures';
import { FakeEventSource } from '@/web/testing/fake-event-source';
import { type StubRequest, stubFetch } from '@/web/testing/fetch-stub';
import { renderAt } from '@/web/testing/render';
import { plan, runDetail, runEvents } from '@/web/testing/run-fixtures';
import { usePipelineStore } from '../stores/pipeline-store';
import { PipelinePanel } from './pipeline-panel';

const T = 'task-1';
const STATUS = `GET /api/pipeline/${T}/status`;
const e = runEvents('run-1', T);

/** What GET …/status answers: the run as the "server" has it now. */
let server: (PipelineRunDetail & { runId: string }) | { status: 'none' };
let requests: StubRequest[];

beforeEach(() => {
  usePipelineStore.setState({ tasks: {}, summaries: {} });
  FakeEventSource.all = [];
  vi.stubGlobal('EventSource', FakeEventSource);
  server = { status: 'none' };
  ({ requests } = stubFetch({
    [STATUS]: () => server,
    [`POST /api/tasks/${T}/start-pipeline`]: { runId: 'run-1' },
    'GET /api/pipeline/runs/run-1/diff': runDiffOf([diffFile({ path: 'src/greet.ts', status: 'added' })]),
    'GET /api/pipeline/runs/run-1/comments': { comments: [] },
  }));
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function serve(detail: Partial<PipelineRunDetail>) {
  const run = runDetail({ taskId: T, ...detail });
  server = { ...run, runId: run.id };
}

const stepper = () => screen.getByTestId('phase-stepper');
const steps = () =>
  Object.fromEntries(
    within(stepper())
      .getAllByRole('listitem')
      .map((step) => [step.dataset.step, step.dataset.state]),
  );
const statusReads = () => requests.filter((r) => r.url.startsWith(`/api/pipeline/${T}/status`)).length;

/** The server sends these on the task's stream, in this order. */
function send(...events: StoredEvent[]) {
  const source = FakeEventSource.find(`/api/sse/${T}`);
  if (!source) throw new Error('the panel opened no task stream');
  act(() => {
    for (const event of events) source.send(event.type, event.data, event.id);
  });
}

async function openPanel(taskStatus: 'backlog' | 'spec' | 'building' = 'spec') {
  renderAt(<PipelinePanel taskId={T} taskStatus={taskStatus} />);
  await waitFor(() => expect(statusReads()).toBe(1));
}

describe('the pipeline panel', () => {
  it('advances its phase stepper as the task stream’s events are reduced', async () => {
    serve({ phase: 'planning' });
    await openPanel();
    await waitFor(() => expect(stepper().dataset.phase).toBe('planning'));
    expect(steps()).toMatchObject({ planning: 'current', coding: 'upcoming' });

    serve({ phase: 'coding', subtasks: plan, subtask: { index: 1, total: 2 } });
    send(
      e.update(1, { phase: 'coding', subtask: { index: 1, total: 2 } }),
      e.phase(2, 'coding', 'running', 0, { index: 1, total: 2, title: plan[0]!.title }),
    );
    expect(stepper().dataset.phase).toBe('coding');
    expect(steps()).toMatchObject({ planning: 'complete', coding: 'current' });
    // The plan is not in the events: it is read once they say there is one.
    await waitFor(() => expect(screen.getByTestId('pipeline-subtasks').children).toHaveLength(2));

    send(e.update(3, { phase: 'reviewing', headCommit: 'c2' }), e.phase(4, 'reviewing'));
    expect(steps()).toMatchObject({ coding: 'complete', reviewing: 'current' });

    send(
      e.update(5, { phase: 'completed', status: 'passed', headCommit: 'c2', reviewScore: 92 }),
      e.complete(6, 'passed'),
    );
    expect(stepper().dataset.status).toBe('passed');
    expect(steps()).toMatchObject({ planning: 'complete', coding: 'complete', reviewing: 'complete' });
    // A finished run's changes are read from git, in the review panel.
    const tree = await screen.findByTestId('diff-tree', {}, { timeout: 10_000 });
    expect(within(tree).getByTestId('diff-tree-file').dataset.path).toBe('src/greet.ts');
  });

  it('does not move backwards on a replayed or older event', async () => {
    serve({ phase: 'planning' });
    await openPanel();
    await waitFor(() => expect(stepper().dataset.phase).toBe('planning'));
    send(e.update(5, { phase: 'reviewing' }), e.phase(6, 'reviewing'));
    expect(stepper().dataset.phase).toBe('reviewing');

    send(e.update(5, { phase: 'reviewing' }), e.update(3, { phase: 'coding' }), e.phase(4, 'coding'));
    expect(stepper().dataset.phase).toBe('reviewing');
    expect(steps()).toMatchObject({ coding: 'complete', reviewing: 'current' });
  });

  it('reads the run again for what a phase produced, never for a phase change alone', async () => {
    serve({ phase: 'coding', subtasks: plan, subtask: { index: 1, total: 2 }, headCommit: 'c1' });
    await openPanel('building');
    await waitFor(() => expect(stepper().dataset.phase).toBe('coding'));
    send(
      e.update(1, { phase: 'coding', subtask: { index: 1, total: 2 }, headCommit: 'c1' }),
      e.phase(2, 'coding', 'running', 0, { index: 2, total: 2, title: plan[1]!.title }),
      e.phase(3, 'reviewing'),
      e.phase(4, 'fixing', 'running', 1),
    );
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(stepper().dataset.phase).toBe('fixing');
    expect(statusReads()).toBe(1);
  });

  it('shows a started run at once, and the server’s next event supersedes it', async () => {
    await openPanel('backlog');
    fireEvent.click(await screen.findByTestId('btn-start-pipeline'));
    await waitFor(() => expect(stepper().dataset.status).toBe('running'));
    expect(stepper().dataset.phase).toBe('planning');
    expect(screen.getByTestId('simulated-badge')).toBeTruthy();

    // The simulator's provider answered 429 before anything else: the run is paused.
    send(
      e.moved(1),
      e.update(2, {
        phase: 'paused',
        status: 'paused',
        errorDetails: {
          type: 'api_error',
          message: 'Rate limited (429)',
          statusCode: 429,
          failedAgent: 'planner',
          failedPhase: 'planning',
          retryable: true,
          retryCount: 0,
          maxRetries: 3,
          timestamp: 2,
        },
      }),
    );
    expect(stepper().dataset.status).toBe('paused');
    expect(steps()).toMatchObject({ planning: 'paused' });
    expect(usePipelineStore.getState().tasks[T]?.pending).toBeNull();
  });

  it('keeps what the run’s first events said when the start answer comes after them', async () => {
    let answer: (value: unknown) => void = () => {};
    ({ requests } = stubFetch({
      [STATUS]: () => server,
      [`POST /api/tasks/${T}/start-pipeline`]: () => new Promise((resolve) => (answer = resolve)),
    }));
    await openPanel('backlog');
    fireEvent.click(await screen.findByTestId('btn-start-pipeline'));
    await waitFor(() => expect(FakeEventSource.find(`/api/sse/${T}`)).toBeDefined());
    send(e.update(1, { phase: 'coding', subtask: { index: 1, total: 2 } }));
    await act(async () => answer({ runId: 'run-1' }));
    expect(stepper().dataset.phase).toBe('coding');
  });
});
