import type { ActivePhase } from '@/contracts/pipeline';
import type { TaskStatus } from '@/contracts/tasks';
import type { PipelineRunState } from '../stores/run-state';
import { fixingProgress } from './run-labels';

export type StepState = 'upcoming' | 'current' | 'complete' | 'skipped' | 'paused' | 'failed' | 'cancelled';

export interface PhaseStep {
  key: ActivePhase | 'outcome';
  label: string;
  detail?: string | undefined;
  state: StepState;
}

const ORDER: readonly ActivePhase[] = ['planning', 'coding', 'reviewing', 'fixing'];
const LABELS: Record<ActivePhase, string> = {
  planning: 'Planning',
  coding: 'Coding',
  reviewing: 'Reviewing',
  fixing: 'Fixing',
};

type StepRun = Pick<
  PipelineRunState,
  | 'phase'
  | 'status'
  | 'iteration'
  | 'roundStart'
  | 'fixedInRound'
  | 'lastActivePhase'
  | 'errorDetails'
  | 'subtask'
  | 'subtasks'
  | 'reviewFindings'
>;

/** The phase the run is in, or where it stopped; null when that is not known (or it passed). */
function stoppedAt(run: StepRun): ActivePhase | null {
  const active = (ORDER as readonly string[]).includes(run.phase) ? (run.phase as ActivePhase) : null;
  switch (run.status) {
    case 'running':
      return active ?? run.lastActivePhase ?? 'planning';
    case 'paused':
      return run.errorDetails?.failedPhase ?? run.lastActivePhase ?? 'planning';
    case 'failed':
      return run.errorDetails?.failedPhase ?? run.lastActivePhase ?? 'reviewing';
    case 'cancelled':
      return run.lastActivePhase;
    default:
      return null;
  }
}

const markerOf: Record<string, StepState> = {
  running: 'current',
  paused: 'paused',
  failed: 'failed',
  cancelled: 'cancelled',
};

/** Planning → Coding → Reviewing → (Fixing) → Review / Done, each with its state, for the stepper. */
export function phaseSteps(run: StepRun, taskStatus: TaskStatus): PhaseStep[] {
  const at = stoppedAt(run);
  const passed = run.status === 'passed';
  const marker = markerOf[run.status] ?? 'current';
  const atIndex = at ? ORDER.indexOf(at) : -1;

  const details: Record<ActivePhase, string | undefined> = {
    planning: run.subtasks.length > 0 ? `${run.subtasks.length} subtasks` : undefined,
    coding: run.subtask
      ? `${run.subtask.index}/${run.subtask.total}`
      : run.subtasks.length > 0 && (passed || atIndex > 1)
        ? `${run.subtasks.length}/${run.subtasks.length}`
        : undefined,
    reviewing: run.reviewFindings ? `score ${run.reviewFindings.score}` : undefined,
    fixing:
      run.fixedInRound || at === 'fixing'
        ? fixingProgress(run.iteration - run.roundStart)
        : passed
          ? 'not needed'
          : 'if needed',
  };

  const steps = ORDER.map((phase, index): PhaseStep => {
    let state: StepState;
    if (passed) state = phase === 'fixing' && !run.fixedInRound ? 'skipped' : 'complete';
    else if (phase === 'fixing')
      state = at === 'fixing' ? marker : run.fixedInRound ? 'complete' : 'upcoming';
    else if (at === null || index > atIndex) state = 'upcoming';
    else state = index < atIndex ? 'complete' : marker;
    return { key: phase, label: LABELS[phase], detail: details[phase], state };
  });

  const done = taskStatus === 'done';
  steps.push({
    key: 'outcome',
    label: done ? 'Done' : 'Review',
    detail: passed ? (done ? 'merged' : 'to approve') : undefined,
    state: passed ? (done ? 'complete' : 'current') : 'upcoming',
  });
  return steps;
}
