import type {
  CreateTaskInput,
  Task,
  TaskCategory,
  TaskPriority,
  TaskStatus,
  UpdateTaskInput,
  UpdateTaskStatusInput,
} from '@/contracts/tasks.js';
import { canMoveManually, MANUAL_TRANSITIONS } from '@/contracts/tasks.js';
import type { Db } from '@/server/db/client.js';
import { AppError, notFound } from '@/server/lib/errors.js';
import { getOwnedProject } from '../projects/projects.js';
import { POSITION_STEP, positionAt } from './positions.js';
import {
  columnPositions,
  deleteTaskRow,
  findOwnedTask,
  findTaskForUpdate,
  hasActiveRun,
  insertTask,
  lockProjectOrder,
  maxPosition,
  renumberColumn,
  type TaskRow,
  updateTaskRow,
} from './tasks.repo.js';

/** What the board's functions need from outside; `AppDeps` provides it. */
export interface TasksDeps {
  db: Db;
  /** Milliseconds since the epoch; tests may move it. */
  now: () => number;
  /** Releases the file locks of a task's runs before it is deleted (the orchestrator's). */
  orchestrator?: { releaseLocksOfTask(taskId: string, projectId: string): Promise<void> };
}

export function toTask(row: TaskRow): Task {
  return {
    id: row.id,
    projectId: row.projectId,
    title: row.title,
    description: row.description,
    category: row.category as TaskCategory,
    priority: row.priority as TaskPriority,
    status: row.status as TaskStatus,
    position: row.position,
    subtasks: row.subtasks ?? null,
    coderEngine: row.coderEngine ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The user's task, or 404 TASK_NOT_FOUND whether it is missing or someone else's. */
export async function getOwnedTask(
  deps: Pick<TasksDeps, 'db'>,
  userId: string,
  taskId: string,
): Promise<TaskRow> {
  const row = await findOwnedTask(deps.db, userId, taskId);
  if (!row) throw notFound('TASK_NOT_FOUND', 'Task');
  return row;
}

/** Creates a task at the bottom of its column. */
export async function createTask(deps: TasksDeps, userId: string, input: CreateTaskInput): Promise<Task> {
  await getOwnedProject(deps, userId, input.projectId);
  const last = await maxPosition(deps.db, input.projectId, input.status);
  const row = await insertTask(deps.db, { ...input, position: (last ?? 0) + POSITION_STEP });
  return toTask(row);
}

export async function updateTask(
  deps: TasksDeps,
  userId: string,
  taskId: string,
  input: UpdateTaskInput,
): Promise<Task> {
  await getOwnedTask(deps, userId, taskId);
  const row = await updateTaskRow(deps.db, taskId, { ...input, updatedAt: new Date(deps.now()) });
  if (!row) throw notFound('TASK_NOT_FOUND', 'Task');
  return toTask(row);
}

/**
 * A move made by a person: between columns only where MANUAL_TRANSITIONS allows,
 * and to any place within a column. Refused moves name the allowed targets.
 */
export async function moveTask(
  deps: TasksDeps,
  userId: string,
  taskId: string,
  input: UpdateTaskStatusInput,
): Promise<Task> {
  const owned = await getOwnedTask(deps, userId, taskId);
  // Moves within one project are serialised: two moves into the same gap would otherwise
  // compute the same position, and two renumberings would deadlock each other.
  return deps.db.transaction(async (tx) => {
    await lockProjectOrder(tx, owned.projectId);
    const task = await findTaskForUpdate(tx, taskId);
    if (!task) throw notFound('TASK_NOT_FOUND', 'Task');
    const from = task.status as TaskStatus;
    if (from !== input.status && (await hasActiveRun(tx, taskId))) {
      throw new AppError(
        'INVALID_TRANSITION',
        'A pipeline is working on this task. Cancel it before moving the task to another column.',
        { from, to: input.status, allowed: [] },
      );
    }
    if (!canMoveManually(from, input.status)) {
      const allowed = MANUAL_TRANSITIONS[from];
      const reason =
        input.status === 'done'
          ? 'A task reaches Done only by approving its review.'
          : input.status === 'building' || input.status === 'review'
            ? `A task enters ${input.status} only through the pipeline.`
            : `A task in ${from} cannot be moved by hand.`;
      throw new AppError(
        'INVALID_TRANSITION',
        `Cannot move a task from ${from} to ${input.status}. ${reason} Allowed: ${allowed.length ? allowed.join(', ') : 'none'}.`,
        { from, to: input.status, allowed: [...allowed] },
      );
    }
    const position = await placeInColumn(tx, task, input.status, input.position);
    const row = await updateTaskRow(tx, taskId, {
      status: input.status,
      position,
      updatedAt: new Date(deps.now()),
    });
    if (!row) throw notFound('TASK_NOT_FOUND', 'Task');
    return toTask(row);
  });
}

async function placeInColumn(db: Db, task: TaskRow, status: string, index: number | undefined) {
  const others = await columnPositions(db, task.projectId, status, task.id);
  if (index === undefined) {
    // No place asked for: keep the card where it is within its column, or append it to a new one.
    if (status === task.status) return task.position;
    const last = others.at(-1);
    return last ? last.position + POSITION_STEP : POSITION_STEP;
  }
  const position = positionAt(
    others.map((other) => other.position),
    index,
  );
  if (position !== null) return position;
  await renumberColumn(db, others, POSITION_STEP);
  return positionAt(
    others.map((_, i) => (i + 1) * POSITION_STEP),
    index,
  ) as number;
}

/** Deletes a task; its pipeline runs go with it (ON DELETE CASCADE). */
export async function deleteTask(deps: TasksDeps, userId: string, taskId: string): Promise<void> {
  const task = await getOwnedTask(deps, userId, taskId);
  // An agent call would go on streaming (and billing) for a task that no longer exists.
  if (await hasActiveRun(deps.db, taskId)) {
    throw new AppError(
      'PIPELINE_ACTIVE',
      'A pipeline is working on this task. Cancel it before deleting the task.',
    );
  }
  // A run in Review holds its files until it ends: deleting its task ends it.
  await deps.orchestrator?.releaseLocksOfTask(taskId, task.projectId);
  await deleteTaskRow(deps.db, taskId);
}
