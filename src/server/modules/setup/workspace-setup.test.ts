import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Service } from '@/contracts/services.js';
import {
  type ServedApp,
  serveTestApp,
  userWithWorkspace,
  waitFor,
  writeService,
} from '../services/testing/fixture.js';
import { readOutput, textOf } from '../services/testing/output-client.js';

/** The project's setup in its own checkout, before a service starts there (no network: a scripted install). */
const INSTALL =
  'rm -rf node_modules && mkdir node_modules && cp package-lock.json node_modules/.installed && echo installed';
const APP = '#!/bin/sh\ntest -f node_modules/.installed && echo "app sees $(cat node_modules/.installed)"\n';

describe('services in the project’s checkout run after its setup', () => {
  let served: ServedApp;
  beforeAll(async () => {
    served = await serveTestApp();
  });
  afterAll(() => served?.close());

  async function runOnce(owner: Awaited<ReturnType<typeof userWithWorkspace>>) {
    expect((await owner.client.post(`${owner.api}/app/start`)).status).toBe(202);
    const ended = await waitFor(
      async () => (await owner.client.get<Service>(`${owner.api}/app`)).body,
      (s) => s.exitCode !== undefined || s.status === 'error',
    );
    const output = await readOutput(`${served.base}${owner.api}/app/output`, owner.cookie);
    return { ended, text: textOf(output.events) };
  }

  it('sets the checkout up before the first service, not again while the lockfile stays, again when it changes', async () => {
    const owner = await userWithWorkspace(served);
    await writeFile(path.join(owner.repoPath, 'package-lock.json'), '{"v":1}\n');
    await writeService(owner.repoPath, 'app', APP);
    expect(
      (await owner.client.patch(`/api/projects/${owner.projectId}`, { setupCommand: INSTALL })).status,
    ).toBe(200);

    const first = await runOnce(owner);
    expect(first.ended.exitCode).toBe(0);
    expect(first.text).toContain(`[autocoder] Setup: ${INSTALL}`);
    expect(first.text).toContain('installed');
    expect(first.text).toContain('app sees {"v":1}');

    const second = await runOnce(owner);
    expect(second.ended.exitCode).toBe(0);
    expect(second.text).not.toContain('[autocoder] Setup');
    expect(second.text).toContain('app sees {"v":1}');

    await writeFile(path.join(owner.repoPath, 'package-lock.json'), '{"v":2}\n');
    const third = await runOnce(owner);
    expect(third.text).toContain('[autocoder] Setup');
    expect(third.text).toContain('app sees {"v":2}');
  });

  it('does not start a service whose setup fails, and says why', async () => {
    const owner = await userWithWorkspace(served);
    await writeFile(path.join(owner.repoPath, 'package-lock.json'), '{"v":"broken"}\n');
    await writeService(owner.repoPath, 'app', APP);
    await owner.client.patch(`/api/projects/${owner.projectId}`, {
      setupCommand: 'echo "no registry" >&2; exit 7',
    });
    const { ended, text } = await runOnce(owner);
    expect(ended.status).toBe('error');
    expect(ended.error).toContain("the project's setup failed");
    expect(ended.error).toContain('exit code 7');
    expect(text).toContain('no registry');
    expect(text).not.toContain('app sees');
  });
});
