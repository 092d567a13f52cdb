import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ProjectActivityResponse } from '@/contracts/coordination.js';
import { signedInClient } from '@/server/testing/test-app.js';
import { projectStream } from '../events/bus.js';
import { createMemoryLockStore } from './memory-lock-store.js';
import { fx, newAgent, useCoordinationApp } from './testing/fixture.js';

/** Issue 27 item 4: GET /api/projects/:id/activity, the Activity feed's history, over REST. */

const activity = (query = '') =>
  fx.owner.get<ProjectActivityResponse>(`/api/projects/${fx.projectId}/activity${query}`);

describe('GET /api/projects/:projectId/activity', () => {
  useCoordinationApp(createMemoryLockStore);

  it('answers the persisted lock events newest first, each refusal naming its holder; other events are left out', async () => {
    const alice = await newAgent('Alice');
    const bob = await newAgent('Bob');
    expect((await alice.post(['src/app.ts'], 'WRITING', 'Alice rewrites the app.')).body.success).toBe(true);
    expect((await bob.post(['src/app.ts'], 'WRITING', 'Bob wants the app.')).body.success).toBe(false);
    // Not a coordination event: not in the feed.
    await fx.t.deps.events.append(projectStream(fx.projectId), {
      type: 'head-moved',
      data: { branch: 'main', head: fx.head0, timestamp: 1 },
    });
    const res = await activity();
    expect(res.status).toBe(200);
    expect(res.body.hasMore).toBe(false);
    expect(res.body.events.map((e) => e.type)).toEqual(['lock-refused', 'lock-taken']);
    const [refused, taken] = res.body.events;
    expect(refused?.id).toBeGreaterThan(taken?.id ?? Infinity);
    expect(taken?.data).toMatchObject({ agent: { id: alice.id, name: 'Alice' }, files: ['src/app.ts'] });
    expect(refused?.data).toMatchObject({
      agent: { id: bob.id, name: 'Bob' },
      holder: alice.id,
      holderName: 'Alice',
      conflicts: ['src/app.ts'],
    });
  });

  it('names the holder of a refusal recorded without its name, by the token’s name; an unknown holder stays an id', async () => {
    const carol = await newAgent('Carol');
    const base = {
      branch: 'main',
      files: ['a.ts'],
      status: 'WRITING' as const,
      message: 'Dave edits a.',
      timestamp: 1,
    };
    await fx.t.deps.events.append(projectStream(fx.projectId), {
      type: 'lock-refused',
      data: { ...base, agent: { id: 'dave', name: 'Dave' }, conflicts: ['a.ts'], holder: carol.id },
    });
    const stranger = randomUUID();
    await fx.t.deps.events.append(projectStream(fx.projectId), {
      type: 'lock-refused',
      data: { ...base, agent: { id: 'dave', name: 'Dave' }, conflicts: ['a.ts'], holder: stranger },
    });
    const [unknown, known] = (await activity('?limit=2')).body.events;
    expect(known?.data).toMatchObject({ holder: carol.id, holderName: 'Carol' });
    expect(unknown?.data).toMatchObject({ holder: stranger });
    expect(unknown?.data).not.toHaveProperty('holderName');
  });

  it('pages back with before and limit until hasMore is false', async () => {
    const erin = await newAgent('Erin');
    for (let i = 1; i <= 5; i++)
      expect((await erin.post([`pages/${i}.ts`], 'READING', `Erin reads page ${i}.`)).body.success).toBe(
        true,
      );
    const all = (await activity('?limit=100')).body.events;
    const first = await activity('?limit=3');
    expect(first.body.events).toEqual(all.slice(0, 3));
    expect(first.body.hasMore).toBe(true);
    const oldest = first.body.events.at(-1)?.id;
    const second = await activity(`?limit=3&before=${oldest}`);
    expect(second.body.events).toEqual(all.slice(3, 6));
    const rest = await activity(`?limit=100&before=${second.body.events.at(-1)?.id}`);
    expect(rest.body.events).toEqual(all.slice(6));
    expect(rest.body.hasMore).toBe(false);
    expect(first.body.events[0]?.data).toMatchObject({ message: 'Erin reads page 5.' });
  });

  it('is 404 for another user’s project, 400 for a bad page and 401 without a session', async () => {
    const other = await signedInClient(fx.t.app);
    expect((await other.client.get(`/api/projects/${fx.projectId}/activity`)).status).toBe(404);
    expect((await activity('?limit=0')).status).toBe(400);
    expect((await activity('?limit=101')).status).toBe(400);
    expect((await activity('?before=abc')).status).toBe(400);
    const res = await fx.t.app.request(`http://localhost/api/projects/${fx.projectId}/activity`, {
      headers: { host: 'localhost' },
    });
    expect(res.status).toBe(401);
  });
});
