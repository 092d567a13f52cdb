import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { Task } from '../../../../contracts/tasks';
import { apiRequest } from '../../../lib/api-client';

export const taskQueryKey = (taskId: string) => ['task', taskId] as const;

export function getTask(taskId: string, signal?: AbortSignal): Promise<Task> {
  return apiRequest<Task>(`/api/tasks/${encodeURIComponent(taskId)}`, { signal });
}

export function useTask(taskId: string) {
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: taskQueryKey(taskId),
    queryFn: ({ signal }) => getTask(taskId, signal),
    // Show the card's data from the board at once while the fresh copy loads.
    placeholderData: () =>
      queryClient
        .getQueriesData<Task[]>({ queryKey: ['tasks'] })
        .flatMap(([, tasks]) => tasks ?? [])
        .find((task) => task.id === taskId),
  });
}
