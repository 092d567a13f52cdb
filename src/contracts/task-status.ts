/**
 * The board's columns, on their own so that `pipeline.ts` (whose events carry a status) and
 * `tasks.ts` (whose cards carry a run summary) need not import each other.
 */
export const TASK_STATUSES = ['backlog', 'spec', 'building', 'review', 'done'] as const;

export type TaskStatus = (typeof TASK_STATUSES)[number];
