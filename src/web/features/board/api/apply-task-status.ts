import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import type { Task, TaskCard, TaskStatus } from '@/contracts/tasks';
import { taskQueryKey } from './get-task';
import { projectTasksKey } from './get-tasks';

/**
 * A move the server made (a pipeline moved the task): the card changes column at once, then the
 * board is read again for the position the server gave it.
 */
export function useApplyTaskStatus(projectId: string) {
  const queryClient = useQueryClient();
  return useCallback(
    ({ taskId, newStatus }: { taskId: string; newStatus: TaskStatus }) => {
      queryClient.setQueriesData<TaskCard[]>({ queryKey: projectTasksKey(projectId) }, (tasks) =>
        tasks?.map((task) => (task.id === taskId ? { ...task, status: newStatus } : task)),
      );
      queryClient.setQueryData<Task>(taskQueryKey(taskId), (task) => task && { ...task, status: newStatus });
      void queryClient.invalidateQueries({ queryKey: projectTasksKey(projectId) });
      void queryClient.invalidateQueries({ queryKey: taskQueryKey(taskId) });
    },
    [queryClient, projectId],
  );
}
