import { useQuery } from '@tanstack/react-query';
import type { ProjectFile } from '@/contracts/projects';
import { apiRequest } from '@/web/lib/api-client';

export function getProjectFile(projectId: string, path: string, signal?: AbortSignal): Promise<ProjectFile> {
  return apiRequest<ProjectFile>(`/api/projects/${encodeURIComponent(projectId)}/file`, {
    query: { path },
    signal,
  });
}

export function useProjectFile(projectId: string, path: string | undefined) {
  return useQuery({
    queryKey: ['project-file', projectId, path],
    queryFn: ({ signal }) => getProjectFile(projectId, path ?? '', signal),
    enabled: Boolean(path),
  });
}
