import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { Task, TaskCategory, TaskStatus } from '../../../../contracts/tasks';
import { apiRequest } from '../../../lib/api-client';

export interface TaskFilters {
  category?: TaskCategory | undefined;
  q?: string | undefined;
}

/** Every task list of a project starts with this key, whatever its filters. */
export const projectTasksKey = (projectId: string) => ['tasks', projectId] as const;

export const tasksQueryKey = (projectId: string, filters: TaskFilters) =>
  [...projectTasksKey(projectId), { category: filters.category ?? null, q: filters.q ?? '' }] as const;

/** Tasks sorted by status, then position. */
export async function getTasks(
  projectId: string,
  filters: TaskFilters & { status?: TaskStatus },
  signal?: AbortSignal,
): Promise<Task[]> {
  const { tasks } = await apiRequest<{ tasks: Task[] }>('/api/tasks', {
    query: { projectId, status: filters.status, category: filters.category, q: filters.q?.trim() },
    signal,
  });
  return tasks;
}

export function useTasks(projectId: string, filters: TaskFilters) {
  return useQuery({
    queryKey: tasksQueryKey(projectId, filters),
    queryFn: ({ signal }) => getTasks(projectId, filters, signal),
    // Keep the board on screen while a new search or filter loads.
    placeholderData: keepPreviousData,
  });
}
