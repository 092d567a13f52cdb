import type { TaskStatus } from '../../../../contracts/tasks';
import { useLatestRun } from '../api/get-latest-run';
import { usePipelineRun, useRunSummary } from '../stores/pipeline-store';
import { type RunLabel, runLabel, showsRunOnCard } from '../utils/run-labels';

const MAY_HAVE_RUN: readonly TaskStatus[] = ['spec', 'building', 'review'];

/**
 * What a board card shows of its task's latest run: the project stream's summary, the task's own
 * stream when its drawer is open (only that carries "subtask k of n"), or one fetch for a task that
 * may be mid-run when the board loads.
 */
export function useCardRun(
  taskId: string,
  taskStatus: TaskStatus,
): (RunLabel & { simulated: boolean }) | null {
  const summary = useRunSummary(taskId);
  const live = usePipelineRun(taskId);
  const fetched = useLatestRun(taskId, !summary && MAY_HAVE_RUN.includes(taskStatus));
  const base = summary ?? fetched.data ?? null;
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
