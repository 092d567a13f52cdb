import { useQuery } from '@tanstack/react-query';
import type { PipelineRunSummary } from '../../../../contracts/pipeline';
import { apiRequest } from '../../../lib/api-client';

export const latestRunKey = (taskId: string) => ['pipeline', 'latest-run', taskId] as const;

/** GET /api/pipeline/:taskId/runs, newest first: the latest, or null when the task never ran. */
export async function getLatestRun(taskId: string, signal?: AbortSignal): Promise<PipelineRunSummary | null> {
  const { runs } = await apiRequest<{ runs: PipelineRunSummary[] }>(
    `/api/pipeline/${encodeURIComponent(taskId)}/runs`,
    { signal },
  );
  return runs[0] ?? null;
}

/** A card's run before the project stream says anything of it; the stream keeps it current after. */
export function useLatestRun(taskId: string, enabled: boolean) {
  return useQuery({
    queryKey: latestRunKey(taskId),
    queryFn: ({ signal }) => getLatestRun(taskId, signal),
    enabled,
    staleTime: Number.POSITIVE_INFINITY,
  });
}
