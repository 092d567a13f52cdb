import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Project, UpdateProjectInput } from '@/contracts/projects';
import { apiRequest } from '@/web/lib/api-client';
import { projectSetupQueryKey } from './get-project-setup';
import { projectsQueryKey } from './get-projects';

export function updateProject({ id, ...input }: UpdateProjectInput & { id: string }): Promise<Project> {
  return apiRequest<Project>(`/api/projects/${encodeURIComponent(id)}`, { method: 'PATCH', body: input });
}

export function useUpdateProject() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateProject,
    meta: { errorTitle: 'Could not save the project settings' },
    onSuccess: (updated) => {
      queryClient.setQueryData<Project[]>(projectsQueryKey, (projects) =>
        projects?.map((project) => (project.id === updated.id ? updated : project)),
      );
      // The proposal is made only while no setup command is set.
      void queryClient.invalidateQueries({ queryKey: projectSetupQueryKey(updated.id) });
    },
  });
}
