import { MAX_ITERATIONS, type PipelinePhase, type PipelineStatus } from '@/contracts/pipeline';
import { isActiveRun } from '@/contracts/run-lifecycle';
import type { TaskStatus } from '@/contracts/tasks';

export type RunTone = 'active' | 'paused' | 'passed' | 'failed' | 'cancelled';

export interface RunLabel {
  label: string;
  tone: RunTone;
}

interface RunPosition {
  phase: PipelinePhase;
  status: PipelineStatus;
  iteration: number;
  /** Where the current round of fixes began (known from the task's stream); 0 otherwise. */
  roundStart?: number | undefined;
  subtask?: { index: number; total: number } | null | undefined;
}

/** Automatic fixes in one round: the reviews after the first (the server's log says "attempt i/n" alike). */
export const MAX_FIXES = MAX_ITERATIONS - 1;

/** The fix attempt of the round, "1/2", as the run's log counts it. */
export const fixingProgress = (attempt: number) =>
  attempt <= MAX_FIXES ? `${attempt}/${MAX_FIXES}` : `attempt ${attempt}`;

/** A card's one-word account of its run ("Planning…", "Coding 2/3", "Fixing 1/2", "Paused", "Passed"). */
export function runLabel(run: RunPosition, taskStatus: TaskStatus): RunLabel {
  switch (run.status) {
    case 'paused':
      return { label: 'Paused', tone: 'paused' };
    case 'passed':
      return { label: taskStatus === 'done' ? 'Merged' : 'Passed', tone: 'passed' };
    case 'failed':
      return { label: 'Failed', tone: 'failed' };
    case 'cancelled':
      return { label: 'Cancelled', tone: 'cancelled' };
    default:
      break;
  }
  switch (run.phase) {
    case 'planning':
      return { label: 'Planning…', tone: 'active' };
    case 'coding':
      return {
        label: run.subtask ? `Coding ${run.subtask.index}/${run.subtask.total}` : 'Coding…',
        tone: 'active',
      };
    case 'reviewing':
      return { label: 'Reviewing…', tone: 'active' };
    case 'fixing':
      return { label: `Fixing ${fixingProgress(run.iteration - (run.roundStart ?? 0))}`, tone: 'active' };
    default:
      return { label: 'Running…', tone: 'active' };
  }
}

/** Whether a card shows its run: always while it works; its outcome only where the outcome put the task. */
export function showsRunOnCard(status: PipelineStatus, taskStatus: TaskStatus): boolean {
  if (isActiveRun(status)) return true;
  if (status === 'passed') return taskStatus === 'review';
  return taskStatus === 'backlog' || taskStatus === 'spec';
}

export const formatCount = (value: number) => new Intl.NumberFormat().format(value);

/** Dollars with cents, or finer for sums under a cent that are not zero. */
export function formatCost(usd: number): string {
  if (usd > 0 && usd < 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}

export const shortSha = (sha: string) => sha.slice(0, 7);
