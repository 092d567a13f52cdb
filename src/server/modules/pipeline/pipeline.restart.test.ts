import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '@/server/testing/server-process.js';
import { type SimulatorHandle, startSimulator } from '../llm/simulator/server.js';
import { type LlmProxy, startLlmProxy } from './testing/llm-proxy.js';
import { LONG_TEST_MS, type RunStatusBody } from './testing/run-kit.js';

const run = promisify(execFile);
const git = async (cwd: string, ...args: string[]) =>
  (await run('git', ['-c', 'user.name=T', '-c', 'user.email=t@e.x', ...args], { cwd })).stdout;

let dataDir: string;
let simulator: SimulatorHandle;
let proxy: LlmProxy;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'autocoder-restart-'));
  simulator = await startSimulator({ chunkDelayMs: 0 });
  proxy = await startLlmProxy(simulator.url);
});
afterAll(async () => {
  for (const server of servers) if (server.child.exitCode === null) server.child.kill('SIGKILL');
  await proxy.close();
  await simulator.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** The real server (src/server/main.ts) over PGlite in `dataDir`, its provider calls through the proxy. */
async function start() {
  const server = await startServerProcess({
    AUTOCODER_DATA_DIR: dataDir,
    AUTOCODER_SIMULATOR_URL: proxy.url,
  });
  servers.push(server);
  let cookie = '';
  const call = async <T>(method: string, url: string, body?: unknown) => {
    const res = await fetch(`${server.url}${url}`, {
      method,
      headers: { origin: server.url, cookie, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : null,
    });
    const setCookie = res.headers.get('set-cookie');
    if (setCookie) cookie = setCookie.split(';')[0] ?? '';
    return { status: res.status, body: (await res.json().catch(() => null)) as T };
  };
  return { server, call };
}

const credentials = { email: 'restart@example.com', password: 'password-1' };

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Coder calls are slowed (a delay directive) so a run is surely mid-answer when its process is stopped. */
const slowCoder = () => proxy.addScenario((seen) => (seen.agent === 'coder' ? 'slow=30' : undefined));

/** Waits until the run has asked the coder for its second subtask (the first is committed). */
const secondCoderCall = (runId: string) =>
  waitFor('the second coder call', async () =>
    proxy.requests.filter((r) => r.runId === runId && r.agent === 'coder').length >= 2 ? true : undefined,
  );

describe('a server restart in the middle of a run', () => {
  it(
    'SIGKILL: the run is paused as interrupted; Retry resumes it and each subtask is committed once. SIGTERM pauses too',
    async () => {
      // 1. A run is coding when its process is killed.
      const first = await start();
      expect((await first.call('POST', '/api/auth/register', credentials)).status).toBe(201);
      const projects = await first.call<{ projects: { id: string }[] }>('GET', '/api/projects');
      const projectId = projects.body.projects[0]!.id;
      // One request per subtask (the one-shot engine): the kill lands between two subtasks.
      const engine = await first.call('PATCH', `/api/projects/${projectId}`, { coderEngine: 'one-shot' });
      expect(engine.status).toBe(200);
      const task = await first.call<{ id: string }>('POST', '/api/tasks', {
        projectId,
        title: 'Survive a kill',
        description: 'A function that greets a person by name.',
      });
      slowCoder();
      const started = await first.call<{ runId: string }>(
        'POST',
        `/api/tasks/${task.body.id}/start-pipeline`,
        {
          provider: 'simulator',
        },
      );
      expect(started.status).toBe(202);
      const runId = started.body.runId;
      await secondCoderCall(runId);
      first.server.child.kill('SIGKILL');
      expect(await first.server.exited).toBeNull();
      proxy.addScenario(undefined);

      // 2. The next process finds it paused, retryable, on its branch with the first subtask's commit.
      const second = await start();
      expect((await second.call('POST', '/api/auth/login', credentials)).status).toBe(200);
      const paused = await second.call<RunStatusBody>('GET', `/api/pipeline/${task.body.id}/status`);
      expect(paused.body).toMatchObject({ runId, status: 'paused', phase: 'paused' });
      expect(paused.body.errorDetails).toMatchObject({ type: 'interrupted', retryable: true });
      const { branch, baseCommit, headCommit } = paused.body;
      const repoPath = path.join(dataDir, 'repos', projectId);
      expect((await git(repoPath, 'rev-parse', `refs/heads/${branch}`)).trim()).toBe(headCommit);
      expect((await git(repoPath, 'rev-list', '--count', `${baseCommit}..${branch}`)).trim()).toBe('1');

      // 3. Retry over HTTP: the run passes with exactly one commit per subtask.
      expect((await second.call('POST', `/api/pipeline/${task.body.id}/retry`, {})).status).toBe(202);
      const done = await waitFor('the retried run to end', async () => {
        const res = await second.call<RunStatusBody>('GET', `/api/pipeline/${task.body.id}/status`);
        return res.body.status === 'running' ? undefined : res.body;
      });
      expect(done).toMatchObject({ runId, status: 'passed', branch, baseCommit });
      const subjects = (await git(repoPath, 'log', '--format=%s', `${baseCommit}..${branch}`))
        .split('\n')
        .filter(Boolean);
      expect(subjects).toEqual(done.subtasks!.map((s) => s.title).reverse());
      expect(new Set(subjects).size).toBe(subjects.length);

      // 4. A graceful stop (SIGTERM) pauses a running run the same way.
      const other = await second.call<{ id: string }>('POST', '/api/tasks', {
        projectId,
        title: 'Survive a stop',
      });
      slowCoder();
      const otherRun = await second.call<{ runId: string }>(
        'POST',
        `/api/tasks/${other.body.id}/start-pipeline`,
        { provider: 'simulator' },
      );
      await secondCoderCall(otherRun.body.runId);
      expect(await second.server.stop('SIGTERM')).toBe(0);
      proxy.addScenario(undefined);
      const third = await start();
      try {
        expect((await third.call('POST', '/api/auth/login', credentials)).status).toBe(200);
        const stopped = await third.call<RunStatusBody>('GET', `/api/pipeline/${other.body.id}/status`);
        expect(stopped.body).toMatchObject({ status: 'paused' });
        expect(stopped.body.errorDetails).toMatchObject({ type: 'interrupted', retryable: true });
        expect(stopped.body.errorDetails?.message).toMatch(/stopped during this run/);
      } finally {
        expect(await third.server.stop('SIGTERM')).toBe(0);
      }
    },
    LONG_TEST_MS,
  );
});
