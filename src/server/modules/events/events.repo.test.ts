import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@/server/db/client.js';
import { events } from '@/server/db/schema.js';
import { openTestDatabase } from '@/server/testing/test-db.js';
import { eventsAfter, eventsOfRun, insertEvents } from './events.repo.js';

describe('insertEvents', () => {
  let database: Database;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => {
    await database.close();
  });

  it('stores a batch as given — run ids, nested data, times — and skips an event stored before', async () => {
    const stream = `project:${randomUUID()}`;
    const runId = randomUUID();
    const at = new Date('2026-11-26T12:34:56.789Z');
    const data = { text: 'naïve “quotes” \\ back\nslash', nested: { list: [1, 2.5, null, true] }, empty: {} };
    await insertEvents(database.db, [
      { stream, seq: 1, runId: null, type: 'lock-taken', data: { files: ['a.ts'] }, createdAt: at },
      { stream, seq: 2, runId, type: 'agent-log', data, createdAt: at },
    ]);
    await insertEvents(database.db, [
      { stream, seq: 2, runId: null, type: 'replaced?', data: {}, createdAt: at },
      { stream, seq: 3, runId, type: 'usage', data: { n: 3 }, createdAt: at },
    ]);
    expect(await eventsAfter(database.db, stream, 0, 10)).toEqual([
      { id: 1, type: 'lock-taken', data: { files: ['a.ts'] } },
      { id: 2, type: 'agent-log', data },
      { id: 3, type: 'usage', data: { n: 3 } },
    ]);
    expect((await eventsOfRun(database.db, runId, 0, 10)).map((event) => event.id)).toEqual([2, 3]);
    const stored = await database.db.select({ createdAt: events.createdAt }).from(events);
    expect(stored.map((row) => row.createdAt.toISOString())).toContain(at.toISOString());
  });
});
