import type { CardRun, TaskStatus } from '@/contracts/tasks';
import { usePipelineRun, useRunSummary } from '../stores/pipeline-store';
import { type RunLabel, runLabel, showsRunOnCard } from '../utils/run-labels';

/**
 * What a board card shows of its task's latest run: the project stream's summary, the task's own
 * stream when its drawer is open, or else the run the board's list carried on the card.
 */
export function useCardRun(
  taskId: string,
  taskStatus: TaskStatus,
  cardRun: CardRun | null,
): (RunLabel & { simulated: boolean }) | null {
  const summary = useRunSummary(taskId);
  const live = usePipelineRun(taskId);
  // The list is read again after every change of the run, so a newer run there wins over an older summary.
  const base = summary && (!cardRun || summary.startedAt >= cardRun.startedAt) ? summary : cardRun;
  const run = live?.streaming && (!base || base.id === live.runId) ? live : null;
  const position = run ?? base;
  if (!position || !showsRunOnCard(position.status, taskStatus)) return null;
  return {
    ...runLabel(
      {
        ...position,
        subtask: run?.subtask ?? base?.subtask,
        roundStart: run?.roundStart ?? base?.roundStart,
      },
      taskStatus,
    ),
    simulated: position.simulated,
  };
}
