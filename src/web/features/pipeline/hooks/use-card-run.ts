import type { CardRun, TaskStatus } from '@/contracts/tasks';
import { useRunSummary } from '../stores/pipeline-store';
import { type RunLabel, runLabel, showsRunOnCard } from '../utils/run-labels';

/**
 * What a board card shows of its task's latest run: the project stream's latest summary of it, or
 * else the run the board's list carried on the card.
 */
export function useCardRun(
  taskId: string,
  taskStatus: TaskStatus,
  cardRun: CardRun | null,
): (RunLabel & { simulated: boolean }) | null {
  const summary = useRunSummary(taskId);
  // The list is read again after every move of a task, so a newer run there wins over an older summary.
  const run = summary && (!cardRun || summary.startedAt >= cardRun.startedAt) ? summary : cardRun;
  if (!run || !showsRunOnCard(run.status, taskStatus)) return null;
  return { ...runLabel(run, taskStatus), simulated: run.simulated };
}
