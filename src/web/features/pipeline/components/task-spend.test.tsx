// @vitest-environment happy-dom
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeEventSource } from '@/web/testing/fake-event-source';
import { stubFetch } from '@/web/testing/fetch-stub';
import { renderAt } from '@/web/testing/render';
import { runDetail, runEvents } from '@/web/testing/run-fixtures';
import { usePipelineStore } from '../stores/pipeline-store';
import { PipelinePanel } from './pipeline-panel';
import { TaskSpend } from './task-spend';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const used = () => screen.getByTestId('task-spend-used');
const meter = () => screen.getByLabelText('Task token budget used');
/** happy-dom's meter clamps its properties to the default max of 1: read the attributes. */
const meterValue = () => Number(meter().getAttribute('value'));
const level = () => screen.getByTestId('task-spend').dataset.level;

describe('the task spend bar', () => {
  it('shows tokens and cost against the budget, filled to the share spent', () => {
    render(<TaskSpend tokens={1_200} costUsd={0.0123} budgetTokens={10_000} />);
    expect(screen.getByTestId('task-spend-tokens').textContent).toBe('1,200 of 10,000 tokens');
    expect(screen.getByTestId('task-spend-cost').textContent).toBe('$0.01 est.');
    expect(used().style.width).toBe('12.0%');
    expect(level()).toBe('ok');
    expect(meterValue()).toBe(1_200);
    expect(meter().getAttribute('max')).toBe('10000');
    expect(meter().getAttribute('aria-valuetext')).toBe('1,200 of 10,000 tokens');
    expect(screen.queryByTestId('task-spend-next-call')).toBeNull();
    expect(screen.queryByTestId('task-spend-needed')).toBeNull();
  });

  it('turns amber near the budget and red past it, never drawing past the end', () => {
    const { rerender } = render(<TaskSpend tokens={8_500} costUsd={0} budgetTokens={10_000} />);
    expect(level()).toBe('near');
    expect(used().className).toContain('bg-amber-500');
    // A budget lowered below what the task already spent.
    rerender(<TaskSpend tokens={12_000} costUsd={0} budgetTokens={10_000} />);
    expect(level()).toBe('over');
    expect(used().className).toContain('bg-red-500');
    expect(used().style.width).toBe('100.0%');
    expect(meterValue()).toBe(10_000);
  });

  it('draws the call a budget pause refused past the spend, and says what budget it needs until it fits', () => {
    const { rerender } = render(
      <TaskSpend tokens={3_000} costUsd={0} budgetTokens={5_000} refusedCallTokens={4_500} />,
    );
    expect(level()).toBe('over');
    expect(used().style.width).toBe('60.0%');
    expect(screen.getByTestId('task-spend-next-call').style.width).toBe('90.0%');
    expect(screen.getByTestId('task-spend-needed').textContent).toBe(
      'The next call could use up to 4,500 tokens: it needs a budget of at least 7,500.',
    );
    // The person raised the budget: the bar says Retry will go on.
    rerender(<TaskSpend tokens={3_000} costUsd={0} budgetTokens={7_500} refusedCallTokens={4_500} />);
    expect(level()).toBe('ok');
    expect(screen.getByTestId('task-spend-needed').textContent).toContain('now covers the next call');
  });

  it('without a budget shows the spend alone, and no bar', () => {
    render(<TaskSpend tokens={42_000} costUsd={1.5} budgetTokens={null} />);
    expect(screen.getByTestId('task-spend').textContent).toContain('42,000 tokens');
    expect(screen.getByTestId('task-spend').textContent).toContain('no budget set');
    expect(screen.getByTestId('task-spend-cost').textContent).toBe('$1.50 est.');
    expect(screen.queryByTestId('task-spend-bar')).toBeNull();
    expect(screen.queryByLabelText('Task token budget used')).toBeNull();
  });
});

describe('the task spend in the pipeline panel', () => {
  const T = 'task-1';
  const e = runEvents('run-1', T);

  beforeEach(() => {
    usePipelineStore.setState({ tasks: {}, summaries: {} });
    FakeEventSource.all = [];
    vi.stubGlobal('EventSource', FakeEventSource);
  });

  it("adds the earlier runs' spend to the run's own, live, and shows a budget pause's Retry without a retry count", async () => {
    const budgetPause = {
      type: 'budget_exceeded' as const,
      message: 'The task has spent 3,000 of its 5,000-token budget…',
      failedAgent: 'coder' as const,
      failedPhase: 'coding' as const,
      retryable: true,
      retryCount: 1,
      maxRetries: 3,
      timestamp: Date.now(),
      budget: { spentTokens: 3_000, budgetTokens: 5_000, callInputTokens: 500, callMaxOutputTokens: 4_000 },
    };
    const run = runDetail({
      taskId: T,
      phase: 'paused',
      status: 'paused',
      usage: { inputTokens: 700, outputTokens: 300, costUsd: 0 },
      earlierRunsUsage: { inputTokens: 1_500, outputTokens: 500, costUsd: 0 },
      errorDetails: budgetPause,
    });
    stubFetch({ [`GET /api/pipeline/${T}/status`]: { ...run, runId: run.id } });
    renderAt(<PipelinePanel taskId={T} taskStatus="building" tokenBudget={5_000} />);

    await waitFor(() =>
      expect(screen.getByTestId('task-spend-tokens').textContent).toBe('3,000 of 5,000 tokens'),
    );
    expect(screen.getByTestId('task-spend-needed').textContent).toContain('at least 7,500');
    const banner = screen.getByTestId('error-notification');
    expect(banner.textContent).toContain('token budget');
    // One Retry on screen, the controls': a budget pause's spends none of the run's retries.
    expect(within(banner).queryByTestId('btn-error-retry')).toBeNull();
    expect(screen.getAllByRole('button', { name: /retry/i }).map((b) => b.textContent)).toEqual(['Retry']);
    expect(within(banner).getByTestId('error-facts').textContent).not.toContain('Retry');

    // The run goes on (Retry after a raised budget): its usage events move the task's spend.
    const source = FakeEventSource.find(`/api/sse/${T}`);
    if (!source) throw new Error('the panel opened no task stream');
    act(() => {
      for (const event of [
        e.update(1, {
          phase: 'coding',
          status: 'running',
          usage: run.usage,
          earlierRunsUsage: run.earlierRunsUsage,
        }),
      ])
        source.send(event.type, event.data, event.id);
      source.send(
        'usage',
        {
          runId: 'run-1',
          call: {
            agent: 'coder',
            model: 'm',
            inputTokens: 500,
            outputTokens: 1_500,
            costUsd: 0,
            durationMs: 5,
          },
          total: { inputTokens: 1_200, outputTokens: 1_800, costUsd: 0 },
          timestamp: Date.now(),
        },
        2,
      );
    });
    await waitFor(() =>
      expect(screen.getByTestId('task-spend-tokens').textContent).toBe('5,000 of 5,000 tokens'),
    );
    expect(level()).toBe('over');
    expect(screen.queryByTestId('task-spend-needed')).toBeNull();
  });

  it('shows no task spend for a first run without a budget (the run meta has its tokens)', async () => {
    const run = runDetail({
      taskId: T,
      phase: 'coding',
      usage: { inputTokens: 10, outputTokens: 5, costUsd: 0 },
    });
    stubFetch({ [`GET /api/pipeline/${T}/status`]: { ...run, runId: run.id } });
    renderAt(<PipelinePanel taskId={T} taskStatus="building" />);
    await waitFor(() => expect(screen.getByTestId('run-meta')).toBeTruthy());
    expect(screen.queryByTestId('task-spend')).toBeNull();
  });
});
