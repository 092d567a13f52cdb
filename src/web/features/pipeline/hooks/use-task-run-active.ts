import { isActiveRun } from '@/contracts/run-lifecycle';
import { selectRun, usePipelineStore } from '../stores/pipeline-store';

/**
 * Whether the task's latest run is active (running or paused): the run the task's stream (or an
 * action just taken) shows, else the project stream's summary of it. Moves are the pipeline's then.
 */
export function useTaskRunActive(taskId: string): boolean {
  return usePipelineStore((state) => {
    const run = selectRun(state, taskId);
    return isActiveRun(run ? run.status : state.summaries[taskId]?.status);
  });
}
