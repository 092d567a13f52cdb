import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Task, UpdateTaskInput } from '@/contracts/tasks';
import { apiRequest } from '@/web/lib/api-client';
import { taskQueryKey } from './get-task';
import { projectTasksKey } from './get-tasks';

export function updateTask({ id, ...input }: UpdateTaskInput & { id: string }): Promise<Task> {
  return apiRequest<Task>(`/api/tasks/${encodeURIComponent(id)}`, { method: 'PATCH', body: input });
}

export function useUpdateTask() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateTask,
    meta: { errorTitle: 'Could not save the task' },
    onSuccess: (task) => {
      queryClient.setQueryData(taskQueryKey(task.id), task);
      return queryClient.invalidateQueries({ queryKey: projectTasksKey(task.projectId) });
    },
  });
}
