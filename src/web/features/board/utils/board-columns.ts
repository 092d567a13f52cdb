import { TASK_STATUSES, type TaskCard, type TaskStatus } from '@/contracts/tasks';

/** Task ids per column, in display order. */
export type ColumnIds = Record<TaskStatus, string[]>;

const COLUMN_PREFIX = 'column:';

/** Droppable id of a whole column, kept apart from task ids. */
export const columnDroppableId = (status: TaskStatus) => `${COLUMN_PREFIX}${status}`;

export function statusOfColumnId(id: string | number): TaskStatus | undefined {
  const value = String(id);
  if (!value.startsWith(COLUMN_PREFIX)) return undefined;
  const status = value.slice(COLUMN_PREFIX.length);
  return (TASK_STATUSES as readonly string[]).includes(status) ? (status as TaskStatus) : undefined;
}

export function emptyColumns(): ColumnIds {
  return { backlog: [], spec: [], building: [], review: [], done: [] };
}

export function groupTaskIds(tasks: readonly TaskCard[]): ColumnIds {
  const columns = emptyColumns();
  const sorted = [...tasks].sort((a, b) => a.position - b.position);
  for (const task of sorted) columns[task.status].push(task.id);
  return columns;
}

/** The column holding `id` — a task id or a column's droppable id. */
export function columnOf(columns: ColumnIds, id: string | number): TaskStatus | undefined {
  return statusOfColumnId(id) ?? TASK_STATUSES.find((status) => columns[status].includes(String(id)));
}

/** The task list the board shows after a move: statuses and positions follow `columns`. */
export function tasksFromColumns(tasks: readonly TaskCard[], columns: ColumnIds): TaskCard[] {
  const byId = new Map(tasks.map((task) => [task.id, task]));
  return TASK_STATUSES.flatMap((status) =>
    columns[status].flatMap((id, position) => {
      const task = byId.get(id);
      return task ? [{ ...task, status, position }] : [];
    }),
  );
}

/** "Spec, or reorder within Backlog" — where a card from `status` may go by hand. */
export function describeAllowed(
  status: TaskStatus,
  allowed: readonly TaskStatus[],
  labels: Record<TaskStatus, string>,
): string {
  const reorder = `reorder within ${labels[status]}`;
  if (allowed.length === 0) return `only ${reorder}`;
  return `${allowed.map((target) => labels[target]).join(', ')}, or ${reorder}`;
}
