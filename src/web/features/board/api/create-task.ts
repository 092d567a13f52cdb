import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { CreateTaskInput, Task } from '@/contracts/tasks';
import { apiRequest } from '@/web/lib/api-client';
import { projectTasksKey } from './get-tasks';

export type NewTask = Pick<CreateTaskInput, 'projectId' | 'title'> & Partial<CreateTaskInput>;

export function createTask(input: NewTask): Promise<Task> {
  return apiRequest<Task>('/api/tasks', { method: 'POST', body: input });
}

export function useCreateTask() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createTask,
    meta: { errorTitle: 'Could not create the task' },
    onSuccess: (task) => queryClient.invalidateQueries({ queryKey: projectTasksKey(task.projectId) }),
  });
}
