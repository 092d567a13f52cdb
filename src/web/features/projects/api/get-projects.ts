import { useQuery } from '@tanstack/react-query';
import type { Project } from '@/contracts/projects';
import { apiRequest } from '@/web/lib/api-client';

export const projectsQueryKey = ['projects'] as const;

/** The user's projects, oldest first. */
export async function getProjects(): Promise<Project[]> {
  const { projects } = await apiRequest<{ projects: Project[] }>('/api/projects');
  return projects;
}

export function useProjects() {
  return useQuery({ queryKey: projectsQueryKey, queryFn: getProjects });
}
