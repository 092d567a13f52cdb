import type { Db } from '@/server/db/client.js';
import { taskStream } from '../events/bus.js';
import type { EventLog } from '../events/event-log.js';
import { latestRunOfTask } from './runs.repo.js';

/**
 * Where a task stream's replay starts for a client that has seen nothing (a page load): just before
 * the first event of the task's latest run, so the panel shows that run from its start; the
 * stream's end when the task never ran (or its run has no event yet).
 */
export async function taskReplayStart(deps: { db: Db; events: EventLog }, taskId: string): Promise<number> {
  const stream = taskStream(taskId);
  const run = await latestRunOfTask(deps.db, taskId);
  const first = run ? await deps.events.firstSeqOfRun(stream, run.id) : null;
  return first !== null ? first - 1 : deps.events.lastSeq(stream);
}
