import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { ListTasksQuery } from '@/contracts/tasks.js';
import type { Db } from '@/server/db/client.js';
import { notFound } from '@/server/lib/errors.js';
import { LruCache } from '@/server/lib/lru-cache.js';
import { TurnBatch } from '@/server/lib/turn-batch.js';
import { toTask } from './tasks.js';
import { findTasksVersion, listCardsJson, listTaskRows } from './tasks.repo.js';

const gzipAsync = promisify(gzip);

/** Lists smaller than this go out as they are: gzip would save less than it costs. */
const GZIP_MIN_BYTES = 1024;
/** Lists kept per database: a few hundred boards' current version, each filter apart. */
const CACHE_ENTRIES = 300;

/** One list as it goes on the wire: JSON `{ tasks }`, and gzipped when large enough. */
export interface SerialisedList {
  etag: string;
  json: Uint8Array<ArrayBuffer>;
  gzip: Uint8Array<ArrayBuffer> | null;
}

export type TaskListAnswer = { notModified: true; etag: string } | ({ notModified: false } & SerialisedList);

/**
 * A project's list for one set of filters, as last serialised: `version` is the board version the
 * list is known to be at least as new as (exact once built, for cards).
 */
interface CachedList {
  version: number;
  list: Promise<SerialisedList>;
}

// Per database, so two apps over two databases (tests) never see each other's lists. One entry per
// (project, filters), replaced when the board moves on: a board that changes every second keeps one
// list in memory, not one per version.
const caches = new WeakMap<Db, LruCache<string, CachedList>>();
// Per database too: the board's version lookups of one turn of the event loop, one query each
// (50 boards revalidating at once cost one round trip, not 50; see lib/turn-batch.ts).
const versionReads = new WeakMap<Db, TurnBatch<string, number | null>>();

function versionOf(db: Db, userId: string, projectId: string): Promise<number | null> {
  let batch = versionReads.get(db);
  if (!batch) {
    batch = new TurnBatch((key) => {
      const [user, project] = key.split(' ') as [string, string];
      return findTasksVersion(db, user, project);
    });
    versionReads.set(db, batch);
  }
  return batch.get(`${userId} ${projectId}`);
}

/** How many lists are kept for the project (one per set of filters asked for), for tests. */
export function cachedListCount(db: Db, projectId: string): number {
  let count = 0;
  for (const [key] of cacheFor(db).entries()) if (key.startsWith(`${projectId} `)) count += 1;
  return count;
}

function cacheFor(db: Db) {
  let cache = caches.get(db);
  if (!cache) {
    cache = new LruCache(CACHE_ENTRIES);
    caches.set(db, cache);
  }
  return cache;
}

// Query tags already computed (a board asks with the same filters every time): no hash per request.
const queryTags = new LruCache<string, string>(1000);

/** The query's own part of the ETag: the same filters give the same tag at one version. */
function queryTag(query: ListTasksQuery): string {
  const key = JSON.stringify([query.view, query.status ?? '', query.category ?? '', query.q ?? '']);
  let tag = queryTags.get(key);
  if (tag === undefined) {
    tag = createHash('sha1').update(key).digest('base64url').slice(0, 16);
    queryTags.set(key, tag);
  }
  return tag;
}

const etagOf = (version: number, query: ListTasksQuery) => `W/"${version}-${queryTag(query)}"`;

/** True when an If-None-Match header names `etag` (weak comparison, as RFC 9110 asks for GET). */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  const wanted = opaque(etag);
  return ifNoneMatch.split(',').some((tag) => opaque(tag) === wanted);
}

async function wire(etag: string, text: string): Promise<SerialisedList> {
  const json = new TextEncoder().encode(text);
  const zipped = json.length >= GZIP_MIN_BYTES ? new Uint8Array(await gzipAsync(json)) : null;
  return { etag, json, gzip: zipped };
}

/**
 * Reads and serialises the list. The cards come with the version of their own snapshot; whole tasks
 * (`view=full`, which the board does not ask for) take `readVersion`, read before their rows: a
 * write in between leaves newer rows under an older version, which the next request replaces,
 * never older rows under a newer one.
 */
async function build(
  db: Db,
  userId: string,
  query: ListTasksQuery,
  readVersion: number,
): Promise<{ version: number; list: SerialisedList }> {
  if (query.view === 'full') {
    const tasks = (await listTaskRows(db, query)).map(toTask);
    return { version: readVersion, list: await wire(etagOf(readVersion, query), JSON.stringify({ tasks })) };
  }
  const cards = await listCardsJson(db, userId, query);
  // Deleted since its version was read.
  if (!cards) throw notFound('PROJECT_NOT_FOUND', 'Project');
  return { version: cards.version, list: await wire(etagOf(cards.version, query), cards.json) };
}

/** The list at `version` or newer: the cached one, the one being built, or a new one. */
function listAtLeast(db: Db, userId: string, query: ListTasksQuery, version: number) {
  const cache = cacheFor(db);
  const key = `${query.projectId} ${queryTag(query)}`;
  const cached = cache.get(key);
  // Newer than asked is as good: it was read after the request came, as a read of its own would be.
  if (cached && cached.version >= version) return cached.list;
  const built = build(db, userId, query, version);
  const entry: CachedList = { version, list: built.then((done) => done.list) };
  cache.set(key, entry);
  built.then(
    (done) => {
      entry.version = done.version;
    },
    () => {
      if (cache.get(key) === entry) cache.delete(key);
    },
  );
  return entry.list;
}

/**
 * GET /api/tasks: one indexed lookup gives the project's version (and ownership, 404 otherwise; the
 * lookups of one event-loop turn share one query); an If-None-Match naming that version answers
 * "not modified", and any other request is served from the list built once per (project, version,
 * filters) and shared by every request that waits for it.
 */
export async function readTaskList(
  deps: { db: Db },
  userId: string,
  query: ListTasksQuery,
  ifNoneMatch: string | undefined,
): Promise<TaskListAnswer> {
  const version = await versionOf(deps.db, userId, query.projectId);
  if (version === null) throw notFound('PROJECT_NOT_FOUND', 'Project');
  const etag = etagOf(version, query);
  if (matchesEtag(ifNoneMatch, etag)) return { notModified: true, etag };
  const list = await listAtLeast(deps.db, userId, query, version);
  if (matchesEtag(ifNoneMatch, list.etag)) return { notModified: true, etag: list.etag };
  return { notModified: false, ...list };
}
