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

/** Per database: what `${userId}\0${normalised repo_url}` resolved to, and when. */
class ProjectLookups {
  readonly found = new LruCache<string, Found>(10_000);
  /** Bumped by every forget: a lookup that started before one does not store what it read. */
  generation = 0;
}

const lookups = new WeakMap<Db, ProjectLookups>();

export function projectLookupsOf(db: Db): ProjectLookups {
  let cache = lookups.get(db);
  if (!cache) {
    cache = new ProjectLookups();
    lookups.set(db, cache);
  }
  return cache;
}

const keyOf = (userId: string, normalisedUrl: string) => `${userId}\0${normalisedUrl}`;

/** The project a user's repo_url named less than PROJECT_RECHECK_MS ago (app clock), if any. */
export function recentProject(db: Db, userId: string, normalisedUrl: string, now: number) {
  const found = projectLookupsOf(db).found.get(keyOf(userId, normalisedUrl));
  if (!found || now < found.foundAt || now - found.foundAt >= PROJECT_RECHECK_MS) return null;
  return found.row;
}

/**
 * Remembers what a lookup found, unless a project was renamed or deleted since it started
 * (`generation` is the cache's generation before the lookup read the database).
 */
export function rememberProject(
  db: Db,
  userId: string,
  normalisedUrl: string,
  found: Found,
  generation: number,
): void {
  const cache = projectLookupsOf(db);
  if (cache.generation === generation) cache.found.set(keyOf(userId, normalisedUrl), found);
}

/** Forgets every repo_url that named the project (renamed, deleted): the next call asks the database. */
export function forgetProjectLookups(db: Db, projectId: string): void {
  const cache = projectLookupsOf(db);
  cache.generation += 1;
  cache.found.deleteWhere((found) => found.row.id === projectId);
}
