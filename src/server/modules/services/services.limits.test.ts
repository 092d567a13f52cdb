import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Service } from '@/contracts/services.js';
import { type AvailableCgroups, probeCgroups } from '../sandbox/cgroups-probe.js';
import { createSandbox, type Sandbox } from '../sandbox/sandbox.js';
import { type ServedApp, serveTestApp, userWithWorkspace, waitFor, writeService } from './testing/fixture.js';
import { readOutput, textOf } from './testing/output-client.js';

const probe = await probeCgroups();
if (!probe.available) console.warn(`SKIPPED: the services limit test needs cgroups (${probe.reason})`);

describe.skipIf(!probe.available)('a service that reaches a limit of its sandbox', () => {
  let sandbox: Sandbox;
  let served: ServedApp;
  beforeAll(async () => {
    // The host mode keeps the test to the limit: the service's cgroup is the same in bubblewrap.
    sandbox = createSandbox({
      mode: 'host',
      bwrapPath: null,
      path: process.env.PATH ?? '/usr/bin:/bin',
      hidden: [],
      limits: { cgroups: probe as AvailableCgroups, limits: { memoryMb: 256, pids: 24, cpus: 1 } },
    });
    served = await serveTestApp({ runtime: { sandbox } });
  });
  afterAll(async () => {
    await served?.close();
    await sandbox?.close();
  });

  it('ends with the limit as its error and in its log', async () => {
    const owner = await userWithWorkspace(served);
    await writeService(owner.repoPath, 'forks', '#!/bin/sh\nwhile :; do sleep 1000 & done\n');
    await owner.client.post(`${owner.api}/forks/start`);
    const ended = await waitFor(
      async () => (await owner.client.get<Service>(`${owner.api}/forks`)).body,
      (s) => s.status === 'error',
      120_000,
    );
    expect(ended.error).toBe('process limit 24 reached');
    const output = await readOutput(`${served.base}${owner.api}/forks/output`, owner.cookie);
    expect(textOf(output.events)).toContain('[autocoder] process limit 24 reached');
  }, 150_000);
});
