import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Task, TaskCard, TaskStatus, UpdateTaskStatusInput } from '@/contracts/tasks';
import { apiRequest } from '@/web/lib/api-client';
import { taskQueryKey } from './get-task';
import { getTasks, projectTasksKey, type TaskFilters, tasksQueryKey } from './get-tasks';

export function updateTaskStatus(taskId: string, input: UpdateTaskStatusInput): Promise<Task> {
  return apiRequest<Task>(`/api/tasks/${encodeURIComponent(taskId)}/status`, {
    method: 'PATCH',
    body: input,
  });
}

export interface MoveTaskRequest {
  task: TaskCard;
  status: TaskStatus;
  /** Index among the cards the board shows in the target column, the moved card excluded. */
  position: number;
  /** The shown cards just before and after the drop point, to place the card when a filter hides some. */
  afterId?: string | undefined;
  beforeId?: string | undefined;
  /** The whole board as it should look once the move is done. */
  optimisticTasks: TaskCard[];
}

/**
 * When a filter hides cards, an index among the shown ones is not an index in the column:
 * read the whole column and place the card next to the same neighbours.
 */
async function positionInFullColumn(projectId: string, request: MoveTaskRequest): Promise<number> {
  const column = (await getTasks(projectId, { status: request.status })).filter(
    (task) => task.id !== request.task.id,
  );
  const before = request.beforeId ? column.findIndex((task) => task.id === request.beforeId) : -1;
  if (before >= 0) return before;
  const after = request.afterId ? column.findIndex((task) => task.id === request.afterId) : -1;
  if (after >= 0) return after + 1;
  return column.length;
}

/**
 * Moves a card: the board changes at once, the server is told, and the board rolls back when it refuses.
 * Returns a plain function so that the optimistic change lands in the same tick as the drop.
 */
export function useMoveTask(projectId: string, filters: TaskFilters) {
  const queryClient = useQueryClient();
  const listKey = tasksQueryKey(projectId, filters);
  const filtered = Boolean(filters.category || filters.q?.trim());

  const mutation = useMutation({
    mutationFn: async ({ request }: { request: MoveTaskRequest; previous: TaskCard[] | undefined }) => {
      const position = filtered ? await positionInFullColumn(projectId, request) : request.position;
      return updateTaskStatus(request.task.id, { status: request.status, position });
    },
    meta: { errorTitle: 'Could not move the task' },
    onSuccess: (task) => queryClient.setQueryData(taskQueryKey(task.id), task),
    onError: (_error, { previous }) => {
      if (previous) queryClient.setQueryData(listKey, previous);
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: projectTasksKey(projectId) }),
  });

  return (request: MoveTaskRequest) => {
    void queryClient.cancelQueries({ queryKey: projectTasksKey(projectId) });
    const previous = queryClient.getQueryData<TaskCard[]>(listKey);
    queryClient.setQueryData(listKey, request.optimisticTasks);
    mutation.mutate({ request, previous });
  };
}

/** A move from the task drawer's buttons: the card goes to the end of the target column. */
export function useSetTaskStatus() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ task, status }: { task: Task; status: TaskStatus }) =>
      updateTaskStatus(task.id, { status }),
    meta: { errorTitle: 'Could not move the task' },
    onSuccess: (task) => {
      queryClient.setQueryData(taskQueryKey(task.id), task);
      return queryClient.invalidateQueries({ queryKey: projectTasksKey(task.projectId) });
    },
  });
}
