import { useQuery } from '@tanstack/react-query';
import type { WorkspaceList } from '@/contracts/services';
import { apiRequest } from '@/web/lib/api-client';

export const workspacesQueryKey = (projectId: string) => ['workspaces', projectId] as const;

/** The project's own workspace and each run's worktree, as checkouts services run in. */
export function getWorkspaces(projectId: string, signal?: AbortSignal): Promise<WorkspaceList> {
  return apiRequest<WorkspaceList>(`/api/projects/${encodeURIComponent(projectId)}/workspaces`, { signal });
}

export function useWorkspaces(projectId: string) {
  return useQuery({
    queryKey: workspacesQueryKey(projectId),
    queryFn: ({ signal }) => getWorkspaces(projectId, signal),
    // Run worktrees come and go with runs; the project's checkout is held behind its branch when
    // an approval lands while its services run (`heldAt`). As often as the services list when idle.
    refetchInterval: 5_000,
  });
}
