import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Service, WorkspaceList } from '@/contracts/services.js';
import { startServerProcess } from '@/server/testing/server-process.js';
import { pidsRunning } from '../sandbox/sandbox-testing.js';
import { waitFor, writeService } from './testing/fixture.js';
import { readOutput, textOf } from './testing/output-client.js';

let dataDir: string;
beforeAll(async () => {
  // Outside /tmp, as an operator's data dir would be (the sandbox gives services a /tmp of their own).
  dataDir = await mkdtemp(path.join('/var/tmp', 'autocoder-services-restart-'));
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

async function call<T>(base: string, method: string, url: string, cookie: string, body?: unknown) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { origin: base, cookie, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : null,
  });
  return {
    status: res.status,
    setCookie: res.headers.get('set-cookie') ?? '',
    body: (await res.json().catch(() => null)) as T,
  };
}

describe('services across a restart of AutoCoder', () => {
  it('stops every service on shutdown, and keeps their output and workspace ids for the next start', async () => {
    const marker = String(93_000_000 + Math.floor(Math.random() * 1_000_000));
    const first = await startServerProcess({ AUTOCODER_DATA_DIR: dataDir });
    let workspaceId = '';
    try {
      const reg = await call<{ user: { id: string } }>(first.url, 'POST', '/api/auth/register', '', {
        email: 'svc@example.com',
        password: 'password-1',
      });
      const cookie = reg.setCookie.split(';')[0] ?? '';
      const projects = await call<{ projects: { id: string }[] }>(first.url, 'GET', '/api/projects', cookie);
      const projectId = projects.body.projects[0]?.id ?? '';
      const list = await call<WorkspaceList>(
        first.url,
        'GET',
        `/api/projects/${projectId}/workspaces`,
        cookie,
      );
      workspaceId = list.body.workspaces[0]?.id ?? '';
      await writeService(
        path.join(dataDir, 'repos', projectId),
        'logger',
        `#!/bin/sh\necho "first line"\necho "to stderr" >&2\ntrap 'echo "got TERM"; exit 0' TERM\nsleep ${marker} &\nwait\n`,
      );
      const api = `/api/workspaces/${workspaceId}/services`;
      expect((await call(first.url, 'POST', `${api}/logger/start`, cookie)).status).toBe(202);
      await waitFor(
        async () => (await call<Service>(first.url, 'GET', `${api}/logger`, cookie)).body,
        (s) => s.status === 'running',
      );
      await readOutput(`${first.url}${api}/logger/output`, cookie, {
        stopWhen: (events) => textOf(events).includes('to stderr'),
      });
      // The script prints before it starts its child: on a loaded machine the child comes a little later.
      await waitFor(
        () => pidsRunning(`sleep ${marker}`),
        (pids) => pids.length > 0,
      );
    } finally {
      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);
    }
    // Shutdown stopped the service and its child: nothing of it is left in the process table.
    expect(await pidsRunning(`sleep ${marker}`)).toEqual([]);

    const second = await startServerProcess({ AUTOCODER_DATA_DIR: dataDir });
    try {
      const login = await call(second.url, 'POST', '/api/auth/login', '', {
        email: 'svc@example.com',
        password: 'password-1',
      });
      const cookie = login.setCookie.split(';')[0] ?? '';
      const projects = await call<{ projects: { id: string }[] }>(second.url, 'GET', '/api/projects', cookie);
      const list = await call<WorkspaceList>(
        second.url,
        'GET',
        `/api/projects/${projects.body.projects[0]?.id}/workspaces`,
        cookie,
      );
      expect(list.body.workspaces[0]?.id).toBe(workspaceId);
      const api = `/api/workspaces/${workspaceId}/services`;
      expect((await call<Service>(second.url, 'GET', `${api}/logger`, cookie)).body).toMatchObject({
        status: 'stopped',
      });
      const output = await readOutput(`${second.url}${api}/logger/output`, cookie);
      expect(output.done).toBe(true);
      expect(textOf(output.events)).toContain('first line\n');
      expect(
        output.events.filter((e) => e.type === 'stderr').map((e) => (e.type === 'exit' ? '' : e.data)),
      ).toContain('to stderr\n');
      expect(output.events.at(-1)).toMatchObject({ type: 'exit' });
    } finally {
      expect(await second.stop('SIGINT')).toBe(0);
    }
  }, 180_000);
});
