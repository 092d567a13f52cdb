import type { PipelineRunDetail, PipelineRunSummary, StoredEvent } from '@/contracts/pipeline.js';
import type { Db } from '@/server/db/client.js';
import { AppError } from '@/server/lib/errors.js';
import type { EventLog } from '../events/event-log.js';
import { eventsOfRun } from '../events/index.js';
import { getOwnedTask } from '../tasks/tasks.js';
import { toRunDetail, toRunSummary } from './run-view.js';
import { findRun, latestRunOfTask, type RunRow, runsOfTask } from './runs.repo.js';

/** What the pipeline's read routes need. */
export interface RunQueryDeps {
  db: Db;
  events: EventLog;
}

/** The task's latest run, or `none` (404 when the task is not the user's). */
export async function runStatus(
  deps: RunQueryDeps,
  userId: string,
  taskId: string,
): Promise<(PipelineRunDetail & { runId: string }) | { status: 'none' }> {
  await getOwnedTask(deps, userId, taskId);
  const run = await latestRunOfTask(deps.db, taskId);
  return run ? { runId: run.id, ...toRunDetail(run) } : { status: 'none' };
}

/** The task's runs, newest first. */
export async function runHistory(
  deps: RunQueryDeps,
  userId: string,
  taskId: string,
): Promise<PipelineRunSummary[]> {
  await getOwnedTask(deps, userId, taskId);
  return (await runsOfTask(deps.db, taskId)).map(toRunSummary);
}

/** The run if it belongs to the user (404 otherwise). */
export async function ownedRun(deps: RunQueryDeps, userId: string, runId: string): Promise<RunRow> {
  const run = await findRun(deps.db, runId);
  if (!run) throw new AppError('RUN_NOT_FOUND', 'Run not found');
  await getOwnedTask(deps, userId, run.taskId).catch((error: unknown) => {
    throw error instanceof AppError ? new AppError('RUN_NOT_FOUND', 'Run not found') : error;
  });
  return run;
}

/** The user's run's events after `after`, events still being batched included. */
export async function runEvents(
  deps: RunQueryDeps,
  userId: string,
  runId: string,
  after: number,
): Promise<{ runId: string; events: StoredEvent[] }> {
  const run = await ownedRun(deps, userId, runId);
  await deps.events.flush();
  return { runId: run.id, events: await eventsOfRun(deps.db, run.id, after, 10_000) };
}
