import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { ProjectLocksResponse } from '@/contracts/coordination';
import { apiRequest } from '@/web/lib/api-client';
import { useActivityStore } from '../stores/activity-store';

export const projectLocksQueryKey = (projectId: string) => ['project-locks', projectId] as const;

/** The project's live locks on its default branch, each naming its task when a pipeline run holds it. */
export function getProjectLocks(projectId: string): Promise<ProjectLocksResponse> {
  return apiRequest<ProjectLocksResponse>(`/api/projects/${encodeURIComponent(projectId)}/locks`);
}

/** Loads the locks held when the board opens into the activity store; the project stream keeps them current. */
export function useProjectLocks(projectId: string) {
  const query = useQuery({
    queryKey: projectLocksQueryKey(projectId),
    queryFn: () => getProjectLocks(projectId),
    enabled: projectId !== '',
  });
  const seed = useActivityStore((state) => state.seedLocks);
  useEffect(() => {
    if (query.data) seed(projectId, query.data.locks);
  }, [projectId, query.data, seed]);
}
