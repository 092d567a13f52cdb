import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { ProjectLocksResponse } from '@/contracts/coordination';
import { apiRequest } from '@/web/lib/api-client';
import { useGraphLockStore } from '../stores/graph-lock-store';

/** The project's live locks on its default branch (GET /api/projects/:id/locks). */
export function getGraphLocks(projectId: string): Promise<ProjectLocksResponse> {
  return apiRequest<ProjectLocksResponse>(`/api/projects/${encodeURIComponent(projectId)}/locks`);
}

/**
 * Loads the locks held when the graph opens into the graph's lock store; the project's stream keeps
 * them current from then on (no refetch per event).
 */
export function useGraphLocksSnapshot(projectId: string) {
  const query = useQuery({
    queryKey: ['graph-locks', projectId],
    queryFn: () => getGraphLocks(projectId),
    enabled: projectId !== '',
    staleTime: Number.POSITIVE_INFINITY,
    refetchOnWindowFocus: false,
    gcTime: 0,
  });
  const seed = useGraphLockStore((state) => state.seed);
  useEffect(() => {
    if (query.data) seed(projectId, query.data);
  }, [projectId, query.data, seed]);
  return query;
}
