import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckLogData } from '@/contracts/pipeline.js';
import { type ServerProcess, startServerProcess } from '@/server/testing/server-process.js';
import { expectContained } from './sandbox-expect.js';
import { findBwrap } from './sandbox-mode.js';
import { probeFacts, probeScript } from './sandbox-probe.js';
import { checkoutReadableBy } from './sandbox-testing.js';

const PATH = process.env.PATH ?? '/usr/bin:/bin';
const run = promisify(execFile);
const root = process.getuid?.() === 0;
const checkout = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
/** A server started as nobody must read this checkout: not one under a directory only root may enter. */
const nobodyCanRun = root && checkoutReadableBy(65534, checkout);
if (root && !nobodyCanRun)
  console.warn(`SKIPPED: the normal-user containment test: uid 65534 cannot read ${checkout}`);

/** A signed-in browser-like client of a real server: a cookie, and the app's own Origin. */
class Client {
  private cookie = '';
  constructor(private readonly base: string) {}

  async request<T>(method: string, url: string, body?: unknown): Promise<{ status: number; body: T }> {
    const res = await fetch(`${this.base}${url}`, {
      method,
      headers: {
        origin: this.base,
        cookie: this.cookie,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const set = res.headers.get('set-cookie');
    if (set) this.cookie = set.split(';')[0] ?? '';
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as T };
  }

  /** The task's pipeline events until one of `until` is seen (the SSE stream replays from the run's start). */
  async eventsUntil(
    taskId: string,
    until: readonly string[],
  ): Promise<Array<{ type: string; data: unknown }>> {
    const res = await fetch(`${this.base}/api/sse/${taskId}`, { headers: { cookie: this.cookie } });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const events: Array<{ type: string; data: unknown }> = [];
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return events;
      buffer += decoder.decode(value, { stream: true });
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const type = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (type && data) events.push({ type, data: JSON.parse(data) });
        if (type && until.includes(type)) {
          await reader.cancel();
          return events;
        }
        end = buffer.indexOf('\n\n');
      }
    }
  }
}

async function signUp(base: string, email: string) {
  const client = new Client(base);
  const registered = await client.request('POST', '/api/auth/register', {
    email,
    password: 'a-long-password',
  });
  expect(registered.status).toBe(201);
  const projects = await client.request<{ projects: Array<{ id: string }> }>('GET', '/api/projects');
  const projectId = projects.body.projects[0]?.id as string;
  return { client, projectId };
}

/**
 * A hostile user's check, run through a real server by the pipeline (offline simulator): the probe
 * of sandbox-probe.ts, plus an attempt to read another user's repository, committed to the user's
 * repository through the server's own git endpoint and set as the project's check.
 */
async function hostileCheck(server: ServerProcess, dataDir: string, marker: string) {
  const victim = await signUp(server.url, 'victim@example.com');
  const attacker = await signUp(server.url, 'attacker@example.com');
  const token = await attacker.client.request<{ token: string }>('POST', '/api/tokens', { name: 'pusher' });
  expect(token.status).toBe(201);

  const port = new URL(server.url).port;
  const victimRepo = path.join(dataDir, 'repos', victim.projectId);
  const script = [
    probeScript({ hostPort: Number(port), mountSource: dataDir }),
    `cat '${victimRepo}/README.md' >/dev/null 2>&1 && echo other-repo=read || echo other-repo=hidden`,
    `ls '${dataDir}' | grep -q pglite && echo database=seen || echo database=hidden`,
    // A nested repository under the pushed gitlink `sub`, whose fsmonitor the server's next git
    // in this worktree would run, outside the sandbox, if it entered it: the marker would then
    // appear in the host's /tmp (the sandbox's own /tmp is a tmpfs of its own).
    'git init -q sub',
    `printf '#!/bin/sh\\ntouch ${marker}\\n' > fsmonitor.sh && chmod +x fsmonitor.sh`,
    'git -C sub config core.fsmonitor "$PWD/fsmonitor.sh"',
    'echo nested=planted',
    'exit 0',
  ].join('\n');
  const clone = await mkdtemp(path.join(tmpdir(), 'autocoder-hostile-'));
  try {
    const auth = ['-c', `http.extraHeader=Authorization: Bearer ${token.body.token}`];
    const git = (...args: string[]) =>
      run('git', ['-c', 'user.name=A', '-c', 'user.email=a@example.com', ...auth, ...args], { cwd: clone });
    await git('clone', '-q', `${server.url}/git/${attacker.projectId}.git`, '.');
    await writeFile(path.join(clone, 'probe.sh'), script);
    await git('add', 'probe.sh');
    // A gitlink `sub` in the pushed tree: the worktree gets an empty directory there.
    const head = (await git('rev-parse', 'HEAD')).stdout.trim();
    await git('update-index', '--add', '--cacheinfo', `160000,${head},sub`);
    await git('commit', '-q', '-m', 'A check');
    await git('push', '-q', 'origin', 'HEAD');
  } finally {
    await rm(clone, { recursive: true, force: true });
  }
  const events = await runWithCheck(attacker, 'sh probe.sh');
  const types = events.map((event) => event.type);
  expect(types, 'the run ended before its check').toContain('check-result');
  // The run ends on the nested repository the check left, after its check.
  const failure = events.find((event) => event.type === 'error')?.data as { type?: string; message?: string };
  expect(types.indexOf('error')).toBeGreaterThan(types.indexOf('check-result'));
  expect(failure?.type).toBe('nested_repository');
  expect(failure?.message).toContain('sub/.git');
  return { facts: probeFacts(checkOutput(events)), attacker };
}

/** Sets the project's check and runs a task with the simulator to its end; the task's events. */
async function runWithCheck(user: { client: Client; projectId: string }, checkCommand: string) {
  const patched = await user.client.request('PATCH', `/api/projects/${user.projectId}`, { checkCommand });
  expect(patched.status).toBe(200);
  const task = await user.client.request<{ id: string }>('POST', '/api/tasks', {
    projectId: user.projectId,
    title: 'Probe the sandbox',
    description: 'A small change.',
  });
  expect(task.status).toBe(201);
  const started = await user.client.request('POST', `/api/tasks/${task.body.id}/start-pipeline`, {
    provider: 'simulator',
  });
  expect(started.status).toBe(202);
  return user.client.eventsUntil(task.body.id, ['error', 'pipeline-complete']);
}

const checkOutput = (events: Array<{ type: string; data: unknown }>) =>
  events
    .filter((event) => event.type === 'check-log')
    .map((event) => (event.data as CheckLogData).chunk)
    .join('');

/** The probe's facts, and no other user's repository or database in sight. */
function expectContainedAndAlone(facts: Record<string, string>) {
  expectContained(facts);
  expect(facts['other-repo']).toBe('hidden');
  expect(facts.database).toBe('hidden');
}

const variants = [
  { name: 'as root', as: undefined, when: root },
  { name: 'as a normal user', as: { uid: 65534, gid: 65534 }, when: nobodyCanRun },
  { name: 'as this user', as: undefined, when: !root },
];

for (const variant of variants) {
  describe.skipIf(!findBwrap(PATH) || !variant.when)(
    `a hostile check through a server started ${variant.name}`,
    () => {
      let server: ServerProcess;
      let dataDir: string;

      beforeAll(async () => {
        dataDir = await mkdtemp(path.join('/var/tmp', 'autocoder-containment-'));
        if (variant.as) await chown(dataDir, variant.as.uid, variant.as.gid);
        server = await startServerProcess(
          {
            AUTOCODER_DATA_DIR: dataDir,
            AUTOCODER_SIMULATOR_DELAY_MS: '0',
            HOME: '/tmp',
            AUTOCODER_SANDBOX_MEMORY_MB: '256',
            AUTOCODER_SANDBOX_PIDS: '64',
          },
          90_000,
          variant.as,
        );
      }, 120_000);
      afterAll(async () => {
        await server?.stop();
        await rm(dataDir, { recursive: true, force: true });
      });

      it('runs with no capability, no mount, no namespaces, no host network, sees no other user, and runs nothing as the server', async () => {
        const marker = path.join(tmpdir(), `autocoder-pwned-${process.pid}-${Date.now()}`);
        const { facts, attacker } = await hostileCheck(server, dataDir, marker);
        expectContainedAndAlone(facts);
        expect(facts.nested).toBe('planted');
        expect(existsSync(marker)).toBe(false);
        if (root) expect(facts.uid).not.toBe('0');

        // The machine's limits: a fork bomb and a memory hog end with their reason in the check's
        // log where the server has cgroups (root here); where it has none it said so at start-up.
        const limited = server.lines.some((line) => line.includes('"sandboxLimits":"cgroup'));
        if (!limited) {
          expect(server.lines.some((line) => line.includes('no cgroups for sandbox limits'))).toBe(true);
          return;
        }
        const forks = checkOutput(await runWithCheck(attacker, 'while :; do sleep 1000 & done'));
        expect(forks).toContain('process limit 64 reached');
        const memory = checkOutput(await runWithCheck(attacker, 'head -c 1000M /dev/zero | tail'));
        expect(memory).toContain('memory limit 256 MB reached');
      }, 240_000);
    },
  );
}
