// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { StoredEvent } from '@/contracts/pipeline';
import { FakeEventSource } from '@/web/testing/fake-event-source';
import { stubFetch } from '@/web/testing/fetch-stub';
import { renderAt } from '@/web/testing/render';
import { runDetail, runEvents } from '@/web/testing/run-fixtures';
import { usePipelineStore } from '../stores/pipeline-store';
import { PipelinePanel } from './pipeline-panel';

const T = 'task-1';
const e = runEvents('run-1', T);

beforeEach(() => {
  usePipelineStore.setState({ tasks: {}, summaries: {} });
  FakeEventSource.all = [];
  vi.stubGlobal('EventSource', FakeEventSource);
  const run = runDetail({ taskId: T, phase: 'coding' });
  stubFetch({ [`GET /api/pipeline/${T}/status`]: () => ({ ...run, runId: run.id }) });
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

/** The server sends these on the task's stream; check output is applied on the next frame. */
async function send(...events: StoredEvent[]) {
  const source = FakeEventSource.find(`/api/sse/${T}`);
  if (!source) throw new Error('the panel opened no task stream');
  act(() => {
    for (const event of events) source.send(event.type, event.data, event.id);
  });
  await act(() => new Promise((resolve) => setTimeout(resolve, 150)));
}

async function openPanel() {
  renderAt(<PipelinePanel taskId={T} taskStatus="building" />);
  await waitFor(() => expect(screen.getByTestId('phase-stepper').dataset.phase).toBe('coding'));
  await waitFor(() => expect(FakeEventSource.find(`/api/sse/${T}`)).toBeDefined());
}

const checkRuns = () => screen.getAllByTestId('check-run');

describe('the Checks log of the task drawer', () => {
  it('is absent until the run checks the repository', async () => {
    await openPanel();
    await send(e.update(1, { phase: 'coding' }), e.log(2, 'coder', 'writing'));
    expect(screen.queryByTestId('check-log')).toBeNull();
  });

  it('shows a check’s output live, stderr apart, then its exit code, duration and verdict', async () => {
    await openPanel();
    await send(e.update(1, { phase: 'coding' }), e.checkLog(2, 'checking for fixed.txt\n'));
    const log = screen.getByTestId('check-log');
    expect(within(log).getByTestId('check-state').textContent).toContain('running');
    expect(within(log).getByTestId('check-output').textContent).toBe('checking for fixed.txt\n');

    await send(
      e.checkLog(3, 'fixed.txt is missing\n', 'stderr'),
      e.checkResult(4, { exitCode: 3, durationMs: 2_400, tail: 'fixed.txt is missing\n' }),
    );
    const output = within(log).getByTestId('check-output');
    expect(output.textContent).toBe('checking for fixed.txt\nfixed.txt is missing\n');
    const stderr = output.querySelector('[data-stream="stderr"]');
    expect(stderr?.textContent).toBe('fixed.txt is missing\n');
    expect(checkRuns()[0]?.dataset.state).toBe('failed');
    expect(within(log).getByTestId('check-result').textContent).toContain('exit code 3');
    expect(within(log).getByTestId('check-result').textContent).toContain('2.4 s');
  });

  it('lists each check of the run, the latest open, and tells a timeout apart', async () => {
    await openPanel();
    await send(
      e.update(1, { phase: 'coding' }),
      e.checkLog(2, 'first\n'),
      e.checkResult(3, { exitCode: null, timedOut: true, durationMs: 10_000 }),
      e.phase(4, 'reviewing'),
      e.phase(5, 'fixing', 'running', 1),
      e.checkLog(6, 'second\n'),
      e.checkResult(7, { exitCode: 0 }),
    );
    expect(screen.getByTestId('check-log-toggle').textContent).toContain('Checks (2)');
    expect(checkRuns().map((c) => c.dataset.state)).toEqual(['timed-out', 'passed']);
    expect(within(checkRuns()[0]!).getByTestId('check-result').textContent).toContain(
      'stopped at the time limit',
    );
    // Only the latest check's output is open; the earlier one opens on demand.
    expect(within(checkRuns()[0]!).queryByTestId('check-output')).toBeNull();
    expect(within(checkRuns()[1]!).getByTestId('check-output').textContent).toBe('second\n');
    fireEvent.click(within(checkRuns()[0]!).getByRole('button', { name: /Check 1/ }));
    expect(within(checkRuns()[0]!).getByTestId('check-output').textContent).toBe('first\n');
  });

  it('folds away and opens again', async () => {
    await openPanel();
    await send(e.update(1, { phase: 'coding' }), e.checkLog(2, 'output\n'));
    const toggle = screen.getByTestId('check-log-toggle');
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    fireEvent.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(screen.queryAllByTestId('check-run')).toHaveLength(0);
    fireEvent.click(toggle);
    expect(checkRuns()).toHaveLength(1);
  });

  it('shows a check the run stopped (cancelled) as stopped, not running', async () => {
    await openPanel();
    await send(
      e.update(1, { phase: 'coding' }),
      e.checkLog(2, 'started\n'),
      e.update(3, { phase: 'cancelled', status: 'cancelled' }),
      e.phase(4, 'cancelled', 'cancelled'),
    );
    expect(checkRuns()[0]?.dataset.state).toBe('stopped');
  });
});
