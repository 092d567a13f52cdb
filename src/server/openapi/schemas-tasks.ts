import { z } from '@hono/zod-openapi';
import { PIPELINE_PHASES, PIPELINE_STATUSES } from '@/contracts/pipeline.js';
import { CODER_ENGINES } from '@/contracts/projects.js';
import {
  type CardRun,
  TASK_CATEGORIES,
  TASK_PRIORITIES,
  TASK_STATUSES,
  type Task,
  type TaskCard,
} from '@/contracts/tasks.js';
import { isoDate, progress } from './schemas.js';

/* What the task routes answer: whole tasks, and the board's cards. See schemas.ts for the rule. */

const taskShape = {
  id: z.uuid(),
  projectId: z.uuid(),
  title: z.string(),
  description: z.string(),
  category: z.enum(TASK_CATEGORIES),
  priority: z.enum(TASK_PRIORITIES),
  status: z.enum(TASK_STATUSES),
  position: z.number(),
  subtasks: z
    .array(z.object({ id: z.string(), title: z.string(), description: z.string(), order: z.number().int() }))
    .nullable(),
  coderEngine: z
    .enum(CODER_ENGINES)
    .nullable()
    .openapi({ description: 'The coder engine of this task’s runs; null: the project’s' }),
  createdAt: isoDate(),
  updatedAt: isoDate(),
};
export const TaskSchema: z.ZodType<Task> = z.object(taskShape).openapi('Task');

const CardRunSchema: z.ZodType<CardRun> = z.object({
  id: z.uuid(),
  taskId: z.uuid(),
  phase: z.enum(PIPELINE_PHASES),
  status: z.enum(PIPELINE_STATUSES),
  iteration: z.number().int(),
  simulated: z.boolean(),
  subtask: progress.nullable(),
  roundStart: z.number().int(),
  startedAt: isoDate(),
});
export const TaskCardSchema: z.ZodType<TaskCard> = z
  .object({
    id: z.uuid(),
    title: z.string(),
    category: z.enum(TASK_CATEGORIES),
    priority: z.enum(TASK_PRIORITIES),
    status: z.enum(TASK_STATUSES),
    position: z.number(),
    run: CardRunSchema.nullable(),
  })
  .openapi('TaskCard');
export const TaskListSchema = z
  .object({ tasks: z.union([z.array(TaskCardSchema), z.array(TaskSchema)]) })
  .openapi('TaskList', { description: 'Cards (`view=cards`, the default) or whole tasks (`view=full`)' });
