import { and, asc, desc, eq, gt, inArray, lt, max, min, type SQL, sql } from 'drizzle-orm';
import type { StoredEvent } from '@/contracts/pipeline.js';
import type { Db } from '@/server/db/client.js';
import { events } from '@/server/db/schema.js';

export interface EventRow {
  stream: string;
  seq: number;
  runId: string | null;
  type: string;
  data: unknown;
  createdAt: Date;
}

/**
 * One INSERT for a whole batch, its rows as one JSON parameter the database unpacks: a multi-row
 * VALUES list costs five bound parameters per event to build, send and parse, and 50 agents posting
 * their locks append a thousand events a second.
 */
export async function insertEvents(db: Db, rows: EventRow[]): Promise<void> {
  if (rows.length === 0) return;
  const batch = JSON.stringify(
    rows.map((row) => ({
      stream: row.stream,
      seq: row.seq,
      run_id: row.runId,
      type: row.type,
      data: row.data,
      created_at: row.createdAt,
    })),
  );
  await db.execute(sql`
    INSERT INTO ${events} (stream, seq, run_id, type, data, created_at)
    SELECT stream, seq, run_id, type, data, created_at
    FROM jsonb_to_recordset(${batch}::jsonb)
      AS batch(stream text, seq bigint, run_id uuid, type text, data jsonb, created_at timestamptz)
    ON CONFLICT DO NOTHING`);
}

export async function maxSeq(db: Db, stream: string): Promise<number> {
  const [row] = await db
    .select({ value: max(events.seq) })
    .from(events)
    .where(eq(events.stream, stream));
  return Number(row?.value ?? 0);
}

export async function firstSeqOfRun(db: Db, stream: string, runId: string): Promise<number | null> {
  const [row] = await db
    .select({ value: min(events.seq) })
    .from(events)
    .where(and(eq(events.stream, stream), eq(events.runId, runId)));
  return row?.value == null ? null : Number(row.value);
}

/** Events of a stream after `afterSeq`, in order. */
export function eventsAfter(db: Db, stream: string, afterSeq: number, limit: number): Promise<StoredEvent[]> {
  return selectEvents(db, and(eq(events.stream, stream), gt(events.seq, afterSeq)), limit);
}

/** Events of one run after `afterSeq`, in order. */
export function eventsOfRun(db: Db, runId: string, afterSeq: number, limit: number): Promise<StoredEvent[]> {
  return selectEvents(db, and(eq(events.runId, runId), gt(events.seq, afterSeq)), limit);
}

async function selectEvents(db: Db, where: SQL | undefined, limit: number): Promise<StoredEvent[]> {
  const rows = await db
    .select({ seq: events.seq, type: events.type, data: events.data })
    .from(events)
    .where(where)
    .orderBy(asc(events.seq))
    .limit(limit);
  return rows.map((row) => ({ id: Number(row.seq), type: row.type, data: row.data }) as StoredEvent);
}

/** Events of a stream of the given types before `beforeSeq` (or the newest), newest first. */
export async function eventsBefore(
  db: Db,
  stream: string,
  types: readonly string[],
  beforeSeq: number | null,
  limit: number,
): Promise<StoredEvent[]> {
  const rows = await db
    .select({ seq: events.seq, type: events.type, data: events.data })
    .from(events)
    .where(
      and(
        eq(events.stream, stream),
        inArray(events.type, [...types]),
        beforeSeq === null ? undefined : lt(events.seq, beforeSeq),
      ),
    )
    .orderBy(desc(events.seq))
    .limit(limit);
  return rows.map((row) => ({ id: Number(row.seq), type: row.type, data: row.data }) as StoredEvent);
}

export async function countEvents(db: Db): Promise<number> {
  const [row] = await db.select({ value: sql<number>`count(*)::int` }).from(events);
  return row?.value ?? 0;
}
