import { useQuery } from '@tanstack/react-query';
import type { DiffFileContent } from '@/contracts/diff';
import { apiRequest } from '@/web/lib/api-client';

/** A file at the run's base and head does not change for a given head commit. */
export const diffFileKey = (runId: string, headCommit: string | null, path: string) =>
  ['pipeline', 'diff-file', runId, headCommit, path] as const;

export function getDiffFile(runId: string, path: string, signal?: AbortSignal): Promise<DiffFileContent> {
  return apiRequest<DiffFileContent>(
    `/api/pipeline/runs/${encodeURIComponent(runId)}/diff/file?path=${encodeURIComponent(path)}`,
    { signal },
  );
}

/**
 * GET /api/pipeline/runs/:runId/diff/file?path=…: the file at the run's base and head (cut at
 * MAX_DIFF_FILE_BYTES), read when the person first expands its context.
 */
export function useDiffFile(runId: string, headCommit: string | null, path: string, enabled: boolean) {
  return useQuery({
    queryKey: diffFileKey(runId, headCommit, path),
    queryFn: ({ signal }) => getDiffFile(runId, path, signal),
    staleTime: Number.POSITIVE_INFINITY,
    enabled,
  });
}
