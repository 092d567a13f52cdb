import type { ActivePhase } from '@/contracts/pipeline';
import type { TaskStatus } from '@/contracts/tasks';
import type { CheckRun, PipelineRunState, SetupRun } from '../stores/run-state';
import { fixingProgress } from './run-labels';

/**
 * `rejected`: the step ended without passing (a review the check or the reviewer failed) and the
 * run went on: done, but not green.
 */
export type StepState =
  | 'upcoming'
  | 'current'
  | 'complete'
  | 'rejected'
  | 'skipped'
  | 'paused'
  | 'failed'
  | 'cancelled';

export interface PhaseStep {
  key: ActivePhase | 'setup' | 'check' | 'outcome';
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
> &
  Partial<Pick<PipelineRunState, 'lockWait'>>;

/** The run's setups and checks, oldest first, as its task stream told them. */
export interface StepOutputs {
  setups?: readonly SetupRun[];
  checks?: readonly CheckRun[];
}

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

export const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

/** The Setup step: the worktree's last setup — running, passed (maybe from the cache), failed. */
function setupStep(run: StepRun, setups: readonly SetupRun[], marker: StepState): PhaseStep | null {
  const last = setups.at(-1);
  if (!last) return null;
  const step = { key: 'setup' as const, label: 'Setup' };
  const result = last.result;
  if (!result) {
    if (run.status === 'running') return { ...step, state: 'current', detail: 'running' };
    return { ...step, state: run.status === 'paused' ? 'paused' : 'cancelled', detail: 'stopped' };
  }
  if (result.passed)
    return {
      ...step,
      state: 'complete',
      detail: result.cache === 'hit' ? 'from cache' : seconds(result.durationMs),
    };
  return {
    ...step,
    state: marker === 'current' ? 'failed' : marker,
    detail: result.timedOut ? 'timed out' : result.exitCode === null ? 'failed' : `exit ${result.exitCode}`,
  };
}

/** The Check step: the project's check after the last coding or fixing step — running, passed, failed. */
function checkStep(run: StepRun, checks: readonly CheckRun[]): PhaseStep | null {
  const last = checks.at(-1);
  if (!last) return null;
  const step = { key: 'check' as const, label: checks.length > 1 ? `Check #${checks.length}` : 'Check' };
  const result = last.result;
  if (!result) {
    if (run.status === 'running') return { ...step, state: 'current', detail: 'running' };
    return { ...step, state: 'upcoming', detail: 'stopped' };
  }
  const took = seconds(result.durationMs);
  if (result.passed) return { ...step, state: 'complete', detail: `passed · ${took}` };
  const why = result.timedOut ? 'timed out' : result.exitCode === null ? 'failed' : `exit ${result.exitCode}`;
  return { ...step, state: 'failed', detail: `${why} · ${took}` };
}

/**
 * [Setup] → Planning → Coding → [Check] → Reviewing → (Fixing) → Review / Done, each with its state,
 * for the stepper. Setup is there when the run set its worktree up, Check when the project's check ran;
 * while a check or a setup runs, it is the current step (not the phase that ran it).
 */
export function phaseSteps(run: StepRun, taskStatus: TaskStatus, outputs: StepOutputs = {}): PhaseStep[] {
  const at = stoppedAt(run);
  const passed = run.status === 'passed';
  const marker = markerOf[run.status] ?? 'current';
  const atIndex = at ? ORDER.indexOf(at) : -1;
  const setup = setupStep(run, outputs.setups ?? [], marker);
  const check = checkStep(run, outputs.checks ?? []);
  // The run is busy with its setup or its check, not with an agent.
  const setupBusy = setup?.state === 'current';
  const setupStopped = setup !== null && setup.detail !== 'from cache' && setup.state === marker && !passed;
  const checkBusy = check?.state === 'current';
  const checkFailed = check?.state === 'failed';
  const waiting = run.status === 'running' && run.lockWait ? 'waiting for a lock' : undefined;

  const details: Record<ActivePhase, string | undefined> = {
    planning: run.subtasks.length > 0 ? `${run.subtasks.length} subtasks` : undefined,
    coding: run.subtask
      ? `${run.subtask.index}/${run.subtask.total}`
      : run.subtasks.length > 0 && (passed || atIndex > 1)
        ? `${run.subtasks.length}/${run.subtasks.length}`
        : undefined,
    reviewing: run.reviewFindings
      ? `score ${run.reviewFindings.score}${checkFailed ? ' · check failed' : ''}`
      : undefined,
    fixing:
      run.fixedInRound || at === 'fixing'
        ? fixingProgress(run.iteration - run.roundStart)
        : passed
          ? 'not needed'
          : 'if needed',
  };

  const phases = ORDER.map((phase, index): PhaseStep => {
    let state: StepState;
    if (passed) state = phase === 'fixing' && !run.fixedInRound ? 'skipped' : 'complete';
    else if (phase === 'fixing')
      state = at === 'fixing' ? marker : run.fixedInRound ? 'complete' : 'upcoming';
    else if (at === null || index > atIndex) state = 'upcoming';
    else state = index < atIndex ? 'complete' : marker;
    // The setup (or the check) is what runs or stopped the run, not this phase's agent.
    if (phase === at && (setupBusy || setupStopped)) state = 'upcoming';
    if (phase === at && checkBusy && (phase === 'coding' || phase === 'fixing')) state = 'complete';
    // A review the check or the reviewer failed sent the run back to fixing: done, never green.
    if (phase === 'reviewing' && state === 'complete' && !passed && (checkFailed || at === 'fixing'))
      state = 'rejected';
    const detail = phase === at && state === 'current' && waiting ? waiting : details[phase];
    return { key: phase, label: LABELS[phase], detail, state };
  });

  const done = taskStatus === 'done';
  const steps = [
    ...(setup ? [setup] : []),
    ...phases.slice(0, 2),
    ...(check ? [check] : []),
    ...phases.slice(2),
  ];
  steps.push({
    key: 'outcome',
    label: done ? 'Done' : 'Review',
    detail: passed ? (done ? 'merged' : 'to approve') : undefined,
    state: passed ? (done ? 'complete' : 'current') : 'upcoming',
  });
  return steps;
}
