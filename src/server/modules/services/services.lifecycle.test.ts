import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Service } from '@/contracts/services.js';
import { type ServedApp, serveTestApp, userWithWorkspace, waitFor, writeService } from './testing/fixture.js';
import { readOutput, textOf } from './testing/output-client.js';

describe('a service whose port never opens, and one that is forgotten', () => {
  let quick: ServedApp;
  beforeAll(async () => {
    quick = await serveTestApp({
      runtime: { services: { startTimeoutMs: 1500, watchMs: 200, keepStoppedMs: 1500 } },
    });
  });
  afterAll(() => quick?.close());

  it('turns to error with the reason and is stopped', async () => {
    const owner = await userWithWorkspace(quick);
    await writeService(owner.repoPath, 'silent', '#!/bin/sh\n#---\n# http: auto\n#---\nexec sleep 600\n');
    await owner.client.post(`${owner.api}/silent/start`);
    const failed = await waitFor(
      async () => (await owner.client.get<Service>(`${owner.api}/silent`)).body,
      (s) => s.status === 'error' && s.pid === undefined,
    );
    expect(failed.error).toMatch(/^port \d+ did not answer HTTP within 1.5 s$/);
    const output = await readOutput(`${quick.base}${owner.api}/silent/output`, owner.cookie);
    expect(textOf(output.events)).toContain('did not answer HTTP');
  });

  it('is remembered for a while after it stopped, then forgotten; its output stays on disk', async () => {
    const owner = await userWithWorkspace(quick);
    await writeService(owner.repoPath, 'once', '#!/bin/sh\necho done once\n');
    await owner.client.post(`${owner.api}/once/start`);
    const ended = await waitFor(
      async () => (await owner.client.get<Service>(`${owner.api}/once`)).body,
      (s) => s.exitCode === 0,
    );
    expect(ended).toMatchObject({ status: 'stopped', startedAt: expect.any(String) });
    const forgotten = await waitFor(
      async () => (await owner.client.get<Service>(`${owner.api}/once`)).body,
      (s) => s.startedAt === undefined,
      10_000,
    );
    expect(forgotten).toEqual({
      id: 'once',
      name: 'once',
      path: '.discobot/services/once',
      status: 'stopped',
    });
    const output = await readOutput(`${quick.base}${owner.api}/once/output`, owner.cookie);
    expect(textOf(output.events)).toBe('done once\n');
    expect(output.events.at(-1)).toMatchObject({ type: 'exit', exitCode: 0 });
  });
});

describe('the limit of running services per user', () => {
  let limited: ServedApp;
  beforeAll(async () => {
    limited = await serveTestApp({
      runtime: { services: { maxRunningPerUser: 2, stopGraceMs: 500 } },
    });
  });
  afterAll(() => limited?.close());

  it('answers 429 TOO_MANY_SERVICES past it, counts per user, and frees a place when one stops', async () => {
    const owner = await userWithWorkspace(limited);
    const other = await userWithWorkspace(limited);
    for (const id of ['one', 'two', 'three']) {
      await writeService(owner.repoPath, id, '#!/bin/sh\nexec sleep 600\n');
    }
    await writeService(other.repoPath, 'theirs', '#!/bin/sh\nexec sleep 600\n');
    expect((await owner.client.post(`${owner.api}/one/start`)).status).toBe(202);
    expect((await owner.client.post(`${owner.api}/two/start`)).status).toBe(202);
    const refused = await owner.client.post(`${owner.api}/three/start`);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: 'TOO_MANY_SERVICES' });
    expect((await owner.client.get<Service>(`${owner.api}/three`)).body.status).toBe('stopped');
    // Another user's services are not counted against this one.
    expect((await other.client.post(`${other.api}/theirs/start`)).status).toBe(202);

    expect((await owner.client.post(`${owner.api}/one/stop`)).status).toBe(200);
    expect((await owner.client.post(`${owner.api}/three/start`)).status).toBe(202);
    for (const [who, id] of [
      [owner, 'two'],
      [owner, 'three'],
      [other, 'theirs'],
    ] as const) {
      expect((await who.client.post(`${who.api}/${id}/stop`)).status).toBe(200);
    }
  });
});
