import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { TaskCard, TaskCategory, TaskStatus } from '@/contracts/tasks';
import { apiRequest } from '@/web/lib/api-client';

export interface TaskFilters {
  category?: TaskCategory | undefined;
  q?: string | undefined;
}

/** Every task list of a project starts with this key, whatever its filters. */
export const projectTasksKey = (projectId: string) => ['tasks', projectId] as const;

export const tasksQueryKey = (projectId: string, filters: TaskFilters) =>
  [...projectTasksKey(projectId), { category: filters.category ?? null, q: filters.q ?? '' }] as const;

/**
 * The board's cards, sorted by status, then position. The server answers with an ETag and
 * `Cache-Control: private, no-cache`, so the browser revalidates its copy with If-None-Match and an
 * unchanged board costs a 304.
 */
export async function getTasks(
  projectId: string,
  filters: TaskFilters & { status?: TaskStatus },
  signal?: AbortSignal,
): Promise<TaskCard[]> {
  const { tasks } = await apiRequest<{ tasks: TaskCard[] }>('/api/tasks', {
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
