import { useQuery } from '@tanstack/react-query';
import type { ProjectSetupInfo } from '@/contracts/projects';
import { apiRequest } from '@/web/lib/api-client';

export const projectSetupQueryKey = (projectId: string) => ['projects', projectId, 'setup'] as const;

/** A project's setup command, what AutoCoder proposes from its lockfiles, and its dependency cache. */
export function getProjectSetup(projectId: string): Promise<ProjectSetupInfo> {
  return apiRequest<ProjectSetupInfo>(`/api/projects/${encodeURIComponent(projectId)}/setup`);
}

export function useProjectSetup(projectId: string, enabled = true) {
  return useQuery({
    queryKey: projectSetupQueryKey(projectId),
    queryFn: () => getProjectSetup(projectId),
    enabled,
  });
}
