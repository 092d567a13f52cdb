import { useQuery } from '@tanstack/react-query';
import type { RunDiff } from '@/contracts/diff';
import { apiRequest } from '@/web/lib/api-client';

/**
 * A run's diff is named by its head commit and its review: new commits or a new review make a
 * new diff, so they are part of the key and nothing else makes it stale.
 */
export const runDiffKey = (runId: string, headCommit: string | null, reviewScore: number | null) =>
  ['pipeline', 'diff', runId, headCommit, reviewScore] as const;

export function getRunDiff(runId: string, signal?: AbortSignal): Promise<RunDiff> {
  return apiRequest<RunDiff>(`/api/pipeline/runs/${encodeURIComponent(runId)}/diff`, { signal });
}

/** GET /api/pipeline/runs/:runId/diff: the run's changed files with their patches and findings. */
export function useRunDiff(runId: string, headCommit: string | null, reviewScore: number | null) {
  return useQuery({
    queryKey: runDiffKey(runId, headCommit, reviewScore),
    queryFn: ({ signal }) => getRunDiff(runId, signal),
    staleTime: Number.POSITIVE_INFINITY,
  });
}
