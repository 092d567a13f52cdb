import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/web/lib/api-client';
import { projectSetupQueryKey } from './get-project-setup';

/** Clears a project's dependency cache (the next setup installs afresh). */
export function clearSetupCache(projectId: string): Promise<void> {
  return apiRequest<void>(`/api/projects/${encodeURIComponent(projectId)}/setup/cache`, {
    method: 'DELETE',
  });
}

export function useClearSetupCache() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: clearSetupCache,
    meta: { errorTitle: 'Could not clear the dependency cache' },
    onSettled: (_result, _error, projectId) =>
      queryClient.invalidateQueries({ queryKey: projectSetupQueryKey(projectId) }),
  });
}
