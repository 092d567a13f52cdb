import type { CardRun, TaskStatus } from '@/contracts/tasks';
import { useRunningStep, useRunSummary } from '../stores/pipeline-store';
import { type RunLabel, runLabel, showsRunOnCard } from '../utils/run-labels';

const STEP_LABEL = { setup: 'Setting up…', check: 'Checking…' } as const;

/**
 * What a board card shows of its task's latest run: the project stream's latest summary of it, or
 * else the run the board's list carried on the card; while the run sets up its worktree or runs
 * the project's check, that step.
 */
export function useCardRun(
  taskId: string,
  taskStatus: TaskStatus,
  cardRun: CardRun | null,
): (RunLabel & { simulated: boolean }) | null {
  const summary = useRunSummary(taskId);
  // The list is read again after every move of a task, so a newer run there wins over an older summary.
  const run = summary && (!cardRun || summary.startedAt >= cardRun.startedAt) ? summary : cardRun;
  const step = useRunningStep(taskId, run?.id ?? null);
  if (!run || !showsRunOnCard(run.status, taskStatus)) return null;
  const label = runLabel(run, taskStatus);
  if (step && label.tone === 'active')
    return { label: STEP_LABEL[step], tone: 'active', simulated: run.simulated };
  return { ...label, simulated: run.simulated };
}
