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

/** The server sends these on the task's stream; setup output is applied on the next frame. */
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

const setupLog = () => screen.getByTestId('setup-log');

describe('the Setup log of the task drawer', () => {
  it('is absent when the run has no setup', async () => {
    await openPanel();
    await send(e.update(1, { phase: 'coding' }), e.log(2, 'coder', 'writing'));
    expect(screen.queryByTestId('setup-log')).toBeNull();
  });

  it('shows the setup’s output live, stderr apart, then that it installed and how long it took', async () => {
    await openPanel();
    await send(e.update(1, { phase: 'coding' }), e.setupLog(2, 'added 12 packages\n'));
    expect(setupLog().dataset.state).toBe('running');
    expect(within(setupLog()).getByTestId('setup-state').textContent).toContain('running');
    expect(within(setupLog()).getByTestId('setup-output').textContent).toBe('added 12 packages\n');
    expect(within(setupLog()).queryByTestId('setup-result')).toBeNull();

    await send(
      e.setupLog(3, 'npm warn deprecated\n', 'stderr'),
      e.setupResult(4, { exitCode: 0, cache: 'miss', durationMs: 12_300 }),
    );
    const output = within(setupLog()).queryByTestId('setup-output');
    // A setup that passed folds to one line; its output opens on demand.
    expect(output).toBeNull();
    const result = within(setupLog()).getByTestId('setup-result');
    expect(result.dataset.cache).toBe('miss');
    expect(result.dataset.passed).toBe('true');
    expect(result.textContent).toContain('12.3 s');
    expect(result.textContent).not.toContain('from cache');
    fireEvent.click(screen.getByTestId('setup-log-toggle'));
    const opened = within(setupLog()).getByTestId('setup-output');
    expect(opened.textContent).toBe('added 12 packages\nnpm warn deprecated\n');
    expect(opened.querySelector('[data-stream="stderr"]')?.textContent).toBe('npm warn deprecated\n');
    // The check log is a section of its own.
    expect(screen.queryByTestId('check-log')).toBeNull();
  });

  it('says "from cache" for a setup restored from the dependency cache', async () => {
    await openPanel();
    await send(
      e.update(1, { phase: 'coding' }),
      e.setupResult(2, { exitCode: null, cache: 'hit', durationMs: 400 }),
    );
    const result = within(setupLog()).getByTestId('setup-result');
    expect(result.dataset.cache).toBe('hit');
    expect(result.dataset.passed).toBe('true');
    expect(result.textContent).toContain('from cache');
    expect(result.textContent).toContain('0.4 s');
    expect(setupLog().dataset.state).toBe('passed');
  });

  it('keeps a failed setup open with its reason, and shows the retried attempt', async () => {
    await openPanel();
    await send(
      e.update(1, { phase: 'coding' }),
      e.setupLog(2, 'npm ERR! missing lockfile\n', 'stderr'),
      e.setupResult(3, { exitCode: 1, reason: 'The setup command exited with code 1.' }),
      e.error(4, { type: 'setup_failed', message: 'setup failed', retryable: true }),
    );
    expect(setupLog().dataset.state).toBe('failed');
    const result = within(setupLog()).getByTestId('setup-result');
    expect(result.dataset.passed).toBe('false');
    expect(result.textContent).toContain('exit code 1');
    expect(within(setupLog()).getByTestId('setup-reason').textContent).toBe(
      'The setup command exited with code 1.',
    );
    expect(within(setupLog()).getByTestId('setup-output').textContent).toBe('npm ERR! missing lockfile\n');

    await send(e.phase(5, 'coding', 'running'), e.setupLog(6, 'again\n'));
    expect(setupLog().dataset.state).toBe('running');
    expect(screen.getByTestId('setup-log-toggle').textContent).toContain('attempt 2');
    expect(within(setupLog()).getByTestId('setup-output').textContent).toBe('again\n');
  });

  it('draws the output as text, never as markup', async () => {
    await openPanel();
    const html = '<img src=x onerror="alert(1)">';
    await send(e.update(1, { phase: 'coding' }), e.setupLog(2, html));
    const output = within(setupLog()).getByTestId('setup-output');
    expect(output.textContent).toBe(html);
    expect(output.querySelector('img')).toBeNull();
  });

  it('replays the setup after a reload', async () => {
    await openPanel();
    await send(
      e.update(1, { phase: 'coding' }),
      e.setupLog(2, 'installing\n'),
      e.setupResult(3, { exitCode: 0, cache: 'miss' }),
    );
    cleanup();
    usePipelineStore.setState({ tasks: {}, summaries: {} });
    await openPanel();
    expect(screen.queryByTestId('setup-log')).toBeNull();
    await send(
      e.update(1, { phase: 'coding' }),
      e.setupLog(2, 'installing\n'),
      e.setupResult(3, { exitCode: 0, cache: 'miss' }),
    );
    expect(within(setupLog()).getByTestId('setup-result').dataset.cache).toBe('miss');
    fireEvent.click(screen.getByTestId('setup-log-toggle'));
    expect(within(setupLog()).getByTestId('setup-output').textContent).toBe('installing\n');
  });
});
