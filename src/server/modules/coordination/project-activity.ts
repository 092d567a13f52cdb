import {
  COORDINATION_EVENT_TYPES,
  type CoordinationEvent,
  type ProjectActivityEvent,
  type ProjectActivityResponse,
} from '@/contracts/coordination.js';
import type { Db } from '@/server/db/client.js';
import { AppError } from '@/server/lib/errors.js';
import { projectStream } from '../events/bus.js';
import type { EventLog } from '../events/event-log.js';
import { findOwnedProject } from '../projects/index.js';
import { holderNames } from './holder-names.repo.js';

export interface ProjectActivityDeps {
  db: Db;
  events: Pick<EventLog, 'history'>;
}

/**
 * A page of the project's coordination events (`lock-*`, persisted with its stream), newest first,
 * before the event `before` (the newest page without it): what the board's Activity feed shows
 * when it opens, and pages back through. A refusal names its holder: by the name it was recorded
 * with, else the holder's current one (a run's task title, an agent token's name, the owner), and
 * the task when the holder is one of the project's runs.
 */
export async function projectActivity(
  deps: ProjectActivityDeps,
  userId: string,
  projectId: string,
  page: { before?: number | undefined; limit: number },
): Promise<ProjectActivityResponse> {
  const project = await findOwnedProject(deps.db, userId, projectId);
  if (!project) throw new AppError('PROJECT_NOT_FOUND', 'Project not found');
  const found = (await deps.events.history(
    projectStream(projectId),
    COORDINATION_EVENT_TYPES,
    page.before ?? null,
    page.limit + 1,
  )) as unknown as ProjectActivityEvent[];
  const events = found.slice(0, page.limit);
  const holders = events.flatMap((e) => (e.type === 'lock-refused' ? [e.data.holder] : []));
  const names = await holderNames(deps.db, userId, projectId, holders);
  return {
    events: events.map((event): ProjectActivityEvent => {
      if (event.type !== 'lock-refused') return event;
      const known = names.get(event.data.holder);
      if (!known) return event;
      const data: Extract<CoordinationEvent, { type: 'lock-refused' }>['data'] = {
        ...event.data,
        holderName: event.data.holderName ?? known.name,
        ...(known.taskId ? { holderTaskId: known.taskId } : {}),
      };
      return { ...event, data };
    }),
    hasMore: found.length > page.limit,
  };
}
