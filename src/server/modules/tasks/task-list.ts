import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { PipelinePhase, PipelineStatus } from '@/contracts/pipeline.js';
import type { ListTasksQuery, TaskCard, TaskCategory, TaskPriority, TaskStatus } from '@/contracts/tasks.js';
import type { Db } from '@/server/db/client.js';
import { notFound } from '@/server/lib/errors.js';
import { LruCache } from '@/server/lib/lru-cache.js';
import { TurnBatch } from '@/server/lib/turn-batch.js';
import { toTask } from './tasks.js';
import { type CardRow, findTasksVersion, listCardRows, listTaskRows } from './tasks.repo.js';

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

// Per database, so two apps over two databases (tests) never see each other's lists.
const caches = new WeakMap<Db, LruCache<string, Promise<SerialisedList>>>();

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

function cacheFor(db: Db) {
  let cache = caches.get(db);
  if (!cache) {
    cache = new LruCache(CACHE_ENTRIES);
    caches.set(db, cache);
  }
  return cache;
}

function toCard(row: CardRow): TaskCard {
  return {
    id: row.id,
    title: row.title,
    category: row.category as TaskCategory,
    priority: row.priority as TaskPriority,
    status: row.status as TaskStatus,
    position: row.position,
    run:
      row.runId === null
        ? null
        : {
            id: row.runId,
            taskId: row.id,
            phase: row.runPhase as PipelinePhase,
            status: row.runStatus as PipelineStatus,
            iteration: row.runIteration ?? 0,
            simulated: row.runProvider === 'simulator',
            // As toRunSummary (pipeline/run-view.ts) counts it.
            subtask:
              row.runPhase === 'coding' && row.runSubtaskCount > 0
                ? {
                    index: Math.min(row.runSubtaskCount, (row.runSubtaskIndex ?? 0) + 1),
                    total: row.runSubtaskCount,
                  }
                : null,
            roundStart: row.runRoundStart ?? 0,
            startedAt: row.runStartedAt?.toISOString() ?? '',
          },
  };
}

/** The query's own part of the ETag: the same filters give the same tag at one version. */
function queryTag(query: ListTasksQuery): string {
  const key = JSON.stringify([query.view, query.status ?? '', query.category ?? '', query.q ?? '']);
  return createHash('sha1').update(key).digest('base64url').slice(0, 16);
}

/** True when an If-None-Match header names `etag` (weak comparison, as RFC 9110 asks for GET). */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  const wanted = opaque(etag);
  return ifNoneMatch.split(',').some((tag) => opaque(tag) === wanted);
}

async function serialise(db: Db, etag: string, query: ListTasksQuery): Promise<SerialisedList> {
  const tasks =
    query.view === 'full'
      ? (await listTaskRows(db, query)).map(toTask)
      : (await listCardRows(db, query)).map(toCard);
  const json = new TextEncoder().encode(JSON.stringify({ tasks }));
  const zipped = json.length >= GZIP_MIN_BYTES ? new Uint8Array(await gzipAsync(json)) : null;
  return { etag, json, gzip: zipped };
}

/**
 * GET /api/tasks: one indexed lookup gives the project's version (and ownership, 404 otherwise);
 * an If-None-Match naming that version answers "not modified", and any other request is served from
 * the list serialised once per (project, version, filters).
 */
export async function readTaskList(
  deps: { db: Db },
  userId: string,
  query: ListTasksQuery,
  ifNoneMatch: string | undefined,
): Promise<TaskListAnswer> {
  const version = await versionOf(deps.db, userId, query.projectId);
  if (version === null) throw notFound('PROJECT_NOT_FOUND', 'Project');
  const etag = `W/"${version}-${queryTag(query)}"`;
  if (matchesEtag(ifNoneMatch, etag)) return { notModified: true, etag };
  // The version is read before the rows: a write in between leaves newer rows under an older
  // version, which the next request replaces, never older rows under a newer one.
  const cache = cacheFor(deps.db);
  const key = `${query.projectId} ${etag}`;
  let list = cache.get(key);
  if (!list) {
    list = serialise(deps.db, etag, query);
    cache.set(key, list);
    list.catch(() => cache.delete(key));
  }
  return { notModified: false, ...(await list) };
}
