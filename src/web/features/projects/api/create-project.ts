import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { CreateProjectInput, Project } from '@/contracts/projects';
import { apiRequest } from '@/web/lib/api-client';
import { projectsQueryKey } from './get-projects';

/** Creates an empty repository, or clones `importPath` / `repoUrl` (422 REPO_IMPORT_FAILED when that fails). */
export function createProject(input: CreateProjectInput): Promise<Project> {
  return apiRequest<Project>('/api/projects', { method: 'POST', body: input });
}

export function useCreateProject() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createProject,
    meta: { errorTitle: 'Could not create the project' },
    onSuccess: (project) => {
      queryClient.setQueryData<Project[]>(projectsQueryKey, (projects) => projects && [...projects, project]);
      void queryClient.invalidateQueries({ queryKey: projectsQueryKey });
    },
  });
}
