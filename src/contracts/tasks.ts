import { z } from 'zod';
import { cleanString, rawString } from './common.js';
import type { PipelineRunSummary } from './pipeline.js';
import { type CoderEngineId, coderEngineSchema } from './projects.js';
import { TASK_STATUSES, type TaskStatus } from './task-status.js';

export { TASK_STATUSES, type TaskStatus };

export const TASK_CATEGORIES = ['feature', 'bug', 'refactor', 'docs', 'test', 'chore'] as const;
export const TASK_PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const;

export type TaskCategory = (typeof TASK_CATEGORIES)[number];
export type TaskPriority = (typeof TASK_PRIORITIES)[number];

export const STATUS_LABELS: Record<TaskStatus, string> = {
  backlog: 'Backlog',
  spec: 'Spec',
  building: 'Building',
  review: 'Review',
  done: 'Done',
};

/**
 * Moves a person may make by hand. A task enters building or review only through
 * the pipeline and reaches done only through approval; moving within a column
 * (reordering) is always allowed.
 */
export const MANUAL_TRANSITIONS: Record<TaskStatus, readonly TaskStatus[]> = {
  backlog: ['spec'],
  spec: ['backlog'],
  building: [],
  review: [],
  done: [],
};

export function canMoveManually(from: TaskStatus, to: TaskStatus): boolean {
  return from === to || MANUAL_TRANSITIONS[from].includes(to);
}

export const subtaskSchema = z.object({
  id: cleanString().min(1).max(100),
  title: cleanString().min(1).max(200),
  description: rawString().max(10_000),
  order: z.number().int().min(1),
});

const title = cleanString().min(1, 'Title is required').max(200, 'Title must be at most 200 characters');
const description = cleanString().max(20_000, 'Description must be at most 20,000 characters');

/** POST /api/tasks */
export const createTaskSchema = z.strictObject({
  projectId: z.uuid('Invalid project id'),
  title,
  description: description.default(''),
  category: z.enum(TASK_CATEGORIES).default('feature'),
  priority: z.enum(TASK_PRIORITIES).default('medium'),
  status: z.enum(['backlog', 'spec']).default('backlog'),
});

/** PATCH /api/tasks/:id — status moves go through PATCH /api/tasks/:id/status. */
export const updateTaskSchema = z
  .strictObject({
    title: title.optional(),
    description: description.optional(),
    category: z.enum(TASK_CATEGORIES).optional(),
    priority: z.enum(TASK_PRIORITIES).optional(),
    subtasks: z.array(subtaskSchema).max(50).nullable().optional(),
    /** The coder engine for this task's runs; null: the project's. */
    coderEngine: coderEngineSchema.nullable().optional(),
  })
  .refine((body) => Object.keys(body).length > 0, { message: 'Nothing to update' });

/** PATCH /api/tasks/:id/status — `position` is the 0-based index the card takes in the target column. */
export const updateTaskStatusSchema = z.strictObject({
  status: z.enum(TASK_STATUSES),
  position: z.number().int().min(0).max(1_000_000).optional(),
});

/** What GET /api/tasks answers: the board's cards (default), or whole tasks. */
export const TASK_LIST_VIEWS = ['cards', 'full'] as const;

/** GET /api/tasks query */
export const listTasksQuerySchema = z.strictObject({
  projectId: z.uuid('Invalid project id'),
  status: z.enum(TASK_STATUSES).optional(),
  category: z.enum(TASK_CATEGORIES).optional(),
  q: cleanString().max(200).optional(),
  view: z.enum(TASK_LIST_VIEWS).default('cards'),
});

export type Subtask = z.infer<typeof subtaskSchema>;
export type CreateTaskInput = z.infer<typeof createTaskSchema>;
export type UpdateTaskInput = z.infer<typeof updateTaskSchema>;
export type UpdateTaskStatusInput = z.infer<typeof updateTaskStatusSchema>;
export type ListTasksQuery = z.infer<typeof listTasksQuerySchema>;

export interface Task {
  id: string;
  projectId: string;
  title: string;
  description: string;
  category: TaskCategory;
  priority: TaskPriority;
  status: TaskStatus;
  position: number;
  subtasks: Subtask[] | null;
  /** The coder engine of this task's runs, overriding the project's; null: the project's. */
  coderEngine: CoderEngineId | null;
  createdAt: string;
  updatedAt: string;
}

/** What a board card shows of its task's latest run. */
export type CardRun = Pick<
  PipelineRunSummary,
  'id' | 'taskId' | 'phase' | 'status' | 'iteration' | 'simulated' | 'subtask' | 'roundStart' | 'startedAt'
>;

/**
 * A task as the board shows it (GET /api/tasks): no description, subtasks or pipeline state — the
 * drawer reads the whole task from GET /api/tasks/:id.
 */
export interface TaskCard {
  id: string;
  title: string;
  category: TaskCategory;
  priority: TaskPriority;
  status: TaskStatus;
  position: number;
  /** The latest run, or null when the task never ran. */
  run: CardRun | null;
}
