import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Project } from '@/contracts/projects';
import { apiRequest } from '@/web/lib/api-client';
import { projectsQueryKey } from './get-projects';

/** Deletes a project; the server refuses the last one with 400 LAST_PROJECT. */
export function deleteProject(id: string): Promise<void> {
  return apiRequest<void>(`/api/projects/${encodeURIComponent(id)}`, { method: 'DELETE' });
}

export function useDeleteProject() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteProject,
    meta: { errorTitle: 'Could not delete the project' },
    onSuccess: (_result, id) => {
      queryClient.setQueryData<Project[]>(projectsQueryKey, (projects) =>
        projects?.filter((project) => project.id !== id),
      );
      queryClient.removeQueries({ predicate: (query) => query.queryKey.includes(id) });
      void queryClient.invalidateQueries({ queryKey: projectsQueryKey });
    },
  });
}
