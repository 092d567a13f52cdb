import type { HeadMovedEvent } from '@/contracts/graph.js';
import type { Logger } from '@/server/lib/logger.js';
import { projectStream } from '../events/bus.js';
import type { EventLog } from '../events/event-log.js';
import { branchHeads, movedHeads } from '../workspace/refs.js';
import type { GraphRepo, GraphService } from './graph-service.js';

export interface HeadWatchDeps {
  events: EventLog;
  graphs: GraphService;
  logger: Logger;
  now: () => number;
}

/**
 * Tells the project's stream that branches moved (`head-moved`, one event per branch) and brings
 * their import graphs up to date in the background, so the graph view's next request finds them built.
 */
export async function announceMovedHeads(
  deps: HeadWatchDeps,
  repo: GraphRepo,
  moved: readonly { branch: string; head: string }[],
): Promise<void> {
  for (const { branch, head } of moved) {
    const event: HeadMovedEvent = { type: 'head-moved', data: { branch, head, timestamp: deps.now() } };
    await deps.events.append(projectStream(repo.id), event);
    deps.graphs.refresh(repo, branch);
  }
}

/**
 * Around something that may move branches (a push): the heads before, and a function to call once
 * it is over that announces the branches it moved. Failing to read the heads is logged, never thrown:
 * the push itself must not fail for it.
 */
export async function watchHeads(deps: HeadWatchDeps, repo: GraphRepo): Promise<() => void> {
  const before = await branchHeads(repo.repoPath).catch(() => null);
  return () => {
    if (!before) return;
    void branchHeads(repo.repoPath)
      .then((after) => announceMovedHeads(deps, repo, movedHeads(before, after)))
      .catch((error: unknown) =>
        deps.logger.warn('could not announce moved branches', { projectId: repo.id, error }),
      );
  };
}
