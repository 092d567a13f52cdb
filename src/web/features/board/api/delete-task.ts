import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Task, TaskCard } from '@/contracts/tasks';
import { apiRequest } from '@/web/lib/api-client';
import { projectTasksKey } from './get-tasks';

export function deleteTask(task: Pick<Task, 'id' | 'projectId'>): Promise<void> {
  return apiRequest<void>(`/api/tasks/${encodeURIComponent(task.id)}`, { method: 'DELETE' });
}

export function useDeleteTask() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteTask,
    meta: { errorTitle: 'Could not delete the task' },
    onSuccess: (_result, task) => {
      queryClient.setQueriesData<TaskCard[]>({ queryKey: projectTasksKey(task.projectId) }, (tasks) =>
        tasks?.filter((candidate) => candidate.id !== task.id),
      );
      void queryClient.invalidateQueries({ queryKey: projectTasksKey(task.projectId) });
    },
  });
}
