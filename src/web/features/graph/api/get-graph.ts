import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { GraphResponse } from '@/contracts/graph';
import { apiRequest } from '@/web/lib/api-client';

export const graphQueryKey = (projectId: string, branch: string) => ['graph', projectId, branch] as const;

/** GET /api/graph: the import graph of the branch's head. A head still being built answers once built. */
export function getGraph(repoUrl: string, branch: string, signal?: AbortSignal): Promise<GraphResponse> {
  return apiRequest<GraphResponse>('/api/graph', { query: { repo_url: repoUrl, branch }, signal });
}

/**
 * The graph of a project's branch. `repoUrl` is AutoCoder's own remote of the project. It is fetched
 * again when the branch moves (`head-moved` on the project's stream invalidates it), not on focus:
 * a new answer of the same head would only lay the graph out again. The previous graph stays drawn
 * while the next one is fetched.
 */
export function useGraph(projectId: string, repoUrl: string, branch: string) {
  return useQuery({
    queryKey: graphQueryKey(projectId, branch),
    queryFn: ({ signal }) => getGraph(repoUrl, branch, signal),
    enabled: projectId !== '' && branch !== '',
    staleTime: Number.POSITIVE_INFINITY,
    refetchOnWindowFocus: false,
    placeholderData: keepPreviousData,
  });
}
