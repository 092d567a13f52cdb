import { describe, expect, it } from 'vitest';
import { newRunState, type PipelineRunState } from '../stores/run-state';
import { phaseSteps } from './phase-steps';
import { runLabel } from './run-labels';

const run = (changes: Partial<PipelineRunState>): PipelineRunState => ({
  ...newRunState('r', 0),
  ...changes,
});
const states = (r: PipelineRunState, task: 'building' | 'review' | 'done' = 'building') =>
  phaseSteps(r, task).map((step) => `${step.key}:${step.state}`);

describe('phase steps', () => {
  it('marks the current phase and those before it', () => {
    expect(states(run({ phase: 'coding', subtask: { index: 2, total: 3, title: 't' } }))).toEqual([
      'planning:complete',
      'coding:current',
      'reviewing:upcoming',
      'fixing:upcoming',
      'outcome:upcoming',
    ]);
  });

  it('draws fixing as the current step with its iteration', () => {
    const steps = phaseSteps(run({ phase: 'fixing', iteration: 1, fixedInRound: true }), 'building');
    expect(steps.find((s) => s.key === 'fixing')).toMatchObject({ state: 'current', detail: '1/2' });
    expect(steps.find((s) => s.key === 'reviewing')?.state).toBe('rejected');
  });

  it('shows where a paused or failed run stopped', () => {
    const error = {
      type: 'api_error' as const,
      message: 'x',
      failedPhase: 'reviewing' as const,
      retryable: true,
      retryCount: 0,
      maxRetries: 3,
      timestamp: 0,
    };
    expect(states(run({ phase: 'paused', status: 'paused', errorDetails: error }))[2]).toBe(
      'reviewing:paused',
    );
    expect(states(run({ phase: 'failed', status: 'failed', errorDetails: error }))[2]).toBe(
      'reviewing:failed',
    );
    expect(states(run({ phase: 'cancelled', status: 'cancelled', lastActivePhase: 'coding' }))[1]).toBe(
      'coding:cancelled',
    );
  });

  it('a passed run waits for approval in Review, then is Done', () => {
    const passed = run({ phase: 'completed', status: 'passed' });
    expect(states(passed, 'review')).toEqual([
      'planning:complete',
      'coding:complete',
      'reviewing:complete',
      'fixing:skipped',
      'outcome:current',
    ]);
    expect(phaseSteps(passed, 'done').at(-1)).toMatchObject({ label: 'Done', state: 'complete' });
  });
});

describe('run labels', () => {
  it('names the phase for a card', () => {
    expect(runLabel({ phase: 'planning', status: 'running', iteration: 0 }, 'spec').label).toBe('Planning…');
    expect(
      runLabel(
        { phase: 'coding', status: 'running', iteration: 0, subtask: { index: 2, total: 3 } },
        'building',
      ).label,
    ).toBe('Coding 2/3');
    expect(runLabel({ phase: 'fixing', status: 'running', iteration: 1 }, 'building').label).toBe(
      'Fixing 1/2',
    );
    expect(runLabel({ phase: 'paused', status: 'paused', iteration: 0 }, 'building').label).toBe('Paused');
    expect(runLabel({ phase: 'completed', status: 'passed', iteration: 0 }, 'review').label).toBe('Passed');
  });
});
