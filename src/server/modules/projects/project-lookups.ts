import type { Db } from '@/server/db/client.js';
import { LruCache } from '@/server/lib/lru-cache.js';
import type { ProjectRow } from './projects.repo.js';

/**
 * How long a repo_url found to name a project is trusted without asking the database again. The
 * agents' calls (check_status, post_status, the graph) name their project by repo_url on every
 * call; a rename or a delete in this process forgets it at once, one in another process is seen
 * within this time.
 */
export const PROJECT_RECHECK_MS = 1000;

interface Found {
  row: ProjectRow;
  foundAt: number;
}

/** Per database: what `${userId}\0${repo_url as sent}` resolved to, and when. */
class ProjectLookups {
  readonly found = new LruCache<string, Found>(10_000);
  /** Lookups under way: calls that come meanwhile (50 agents at once) wait for them, not the database. */
  readonly pending = new Map<string, Promise<ProjectRow | null>>();
  /** Bumped by every forget: a lookup that started before one does not store what it read. */
  generation = 0;
}

const lookups = new WeakMap<Db, ProjectLookups>();

function projectLookupsOf(db: Db): ProjectLookups {
  let cache = lookups.get(db);
  if (!cache) {
    cache = new ProjectLookups();
    lookups.set(db, cache);
  }
  return cache;
}

/**
 * The project a user's repo_url names: what a lookup found less than PROJECT_RECHECK_MS ago (app
 * clock), else `find`'s answer, one `find` per user and repo_url at a time. Only projects found are
 * kept; a miss asks again on the next call.
 */
export function lookupProject(
  db: Db,
  userId: string,
  repoUrl: string,
  now: number,
  find: () => Promise<ProjectRow | null>,
): Promise<ProjectRow | null> {
  const cache = projectLookupsOf(db);
  const key = `${userId}\0${repoUrl}`;
  const found = cache.found.get(key);
  if (found && now >= found.foundAt && now - found.foundAt < PROJECT_RECHECK_MS) {
    return Promise.resolve(found.row);
  }
  const pending = cache.pending.get(key);
  if (pending) return pending;
  const generation = cache.generation;
  const lookup = find()
    .then((row) => {
      if (row && cache.generation === generation) cache.found.set(key, { row, foundAt: now });
      return row;
    })
    .finally(() => {
      if (cache.pending.get(key) === lookup) cache.pending.delete(key);
    });
  cache.pending.set(key, lookup);
  return lookup;
}

/** Forgets every repo_url that named the project (renamed, deleted): the next call asks the database. */
export function forgetProjectLookups(db: Db, projectId: string): void {
  const cache = projectLookupsOf(db);
  cache.generation += 1;
  // A lookup under way may have read the project as it was: later calls start their own.
  cache.pending.clear();
  cache.found.deleteWhere((found) => found.row.id === projectId);
}
