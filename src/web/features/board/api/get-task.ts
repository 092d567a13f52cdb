import { useQuery } from '@tanstack/react-query';
import type { Task } from '@/contracts/tasks';
import { apiRequest } from '@/web/lib/api-client';

export const taskQueryKey = (taskId: string) => ['task', taskId] as const;

export function getTask(taskId: string, signal?: AbortSignal): Promise<Task> {
  return apiRequest<Task>(`/api/tasks/${encodeURIComponent(taskId)}`, { signal });
}

/** The whole task for the drawer: the board's cards carry only what a card shows. */
export function useTask(taskId: string) {
  return useQuery({
    queryKey: taskQueryKey(taskId),
    queryFn: ({ signal }) => getTask(taskId, signal),
  });
}
