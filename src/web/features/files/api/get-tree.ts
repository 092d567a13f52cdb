import { useQuery } from '@tanstack/react-query';
import type { ProjectTree } from '@/contracts/projects';
import { apiRequest } from '@/web/lib/api-client';

export const projectTreeQueryKey = (projectId: string) => ['project-tree', projectId] as const;

/** Files of the project's default branch. */
export function getProjectTree(projectId: string, signal?: AbortSignal): Promise<ProjectTree> {
  return apiRequest<ProjectTree>(`/api/projects/${encodeURIComponent(projectId)}/tree`, { signal });
}

export function useProjectTree(projectId: string) {
  return useQuery({
    queryKey: projectTreeQueryKey(projectId),
    queryFn: ({ signal }) => getProjectTree(projectId, signal),
  });
}
