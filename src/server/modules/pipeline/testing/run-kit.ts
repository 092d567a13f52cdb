import { eq } from 'drizzle-orm';
import type { AgentType, PipelineRunDetail, PipelineRunSummary, StoredEvent } from '@/contracts/pipeline.js';
import type { CoderEngineId } from '@/contracts/projects.js';
import type { Task, TaskCategory } from '@/contracts/tasks.js';
import { pipelineRuns, projects } from '@/server/db/schema.js';
import { GitError, gitText } from '@/server/lib/git.js';
import { projectStream, taskStream } from '@/server/modules/events/bus.js';
import { startSimulator } from '@/server/modules/llm/simulator/server.js';
import { createTestApp, signedInClient, type TestApp, type TestClient } from '@/server/testing/test-app.js';
import { type LlmProxy, startLlmProxy } from './llm-proxy.js';

/**
 * Helpers shared by the pipeline's integration tests: every one of them drives the real app
 * (routes, orchestrator, database, git, simulator) and observes it the way a client does.
 */

/** Longest wait for something a run will do; a bound against hangs, never an assertion on speed. */
export const WAIT_LIMIT_MS = 90_000;
/** Per-test limit for tests that drive several runs on a loaded machine. */
export const LONG_TEST_MS = 240_000;

export type RunStatusBody = PipelineRunDetail & { runId: string };

export interface TaskSetup {
  client: TestClient;
  userId: string;
  projectId: string;
  taskId: string;
  title: string;
}

/** A fresh user with a task in their default project's backlog. */
export async function newTask(
  t: TestApp,
  opts: {
    title?: string;
    description?: string;
    category?: TaskCategory;
    user?: Omit<TaskSetup, 'taskId' | 'title'>;
    /** The task's coder engine (the project's default, `autocoder`, otherwise). */
    coderEngine?: CoderEngineId;
  } = {},
): Promise<TaskSetup> {
  const user = opts.user ?? (await signedInClient(t.app));
  const title = opts.title ?? 'Add greeting helper';
  const res = await user.client.post<Task>('/api/tasks', {
    projectId: user.projectId,
    title,
    description: opts.description ?? 'A function that greets a person by name.',
    ...(opts.category ? { category: opts.category } : {}),
  });
  if (res.status !== 201) throw new Error(`task creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  if (opts.coderEngine) {
    const patched = await user.client.patch(`/api/tasks/${res.body.id}`, { coderEngine: opts.coderEngine });
    if (patched.status !== 200) throw new Error(`setting the coder engine failed: ${patched.status}`);
  }
  return { client: user.client, userId: user.userId, projectId: user.projectId, taskId: res.body.id, title };
}

/** POST start-pipeline with the simulator (and a scenario, when given). */
export function startRun(
  client: TestClient,
  taskId: string,
  body: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) {
  return client.request<{ runId: string; error?: string; message?: string }>(
    'POST',
    `/api/tasks/${taskId}/start-pipeline`,
    { provider: 'simulator', ...body },
    headers,
  );
}

export function post<T = Record<string, unknown>>(
  client: TestClient,
  url: string,
  body: unknown = {},
  headers: Record<string, string> = {},
) {
  return client.request<T & { error?: string; message?: string }>('POST', url, body, headers);
}

/** Starts a run and expects the 202. */
export async function startOk(client: TestClient, taskId: string, body: Record<string, unknown> = {}) {
  const res = await startRun(client, taskId, body);
  if (res.status !== 202) throw new Error(`start failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.runId;
}

export async function statusOf(client: TestClient, taskId: string): Promise<RunStatusBody> {
  const res = await client.get<RunStatusBody>(`/api/pipeline/${taskId}/status`);
  if (res.status !== 200) throw new Error(`status failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function taskStatusOf(client: TestClient, taskId: string) {
  return (await client.get<Task>(`/api/tasks/${taskId}`)).body.status;
}

/** Every event of the task's stream, as a reconnecting client would get them. */
export function taskEvents(t: TestApp, taskId: string): Promise<StoredEvent[]> {
  return t.deps.events.replay(taskStream(taskId), 0);
}

export async function projectEvents(t: TestApp, projectId: string): Promise<StoredEvent[]> {
  return t.deps.events.replay(projectStream(projectId), 0);
}

/**
 * Resolves with the first event of the task's stream that matches — one already sent or a
 * live one. Subscribes before reading the log, so nothing falls between the two.
 */
export function waitForEvent(
  t: TestApp,
  taskId: string,
  match: (event: StoredEvent) => boolean,
  what: string,
): Promise<StoredEvent> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (outcome: StoredEvent | Error) => {
      if (settled) return;
      settled = true;
      unsubscribe();
      clearTimeout(timer);
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const unsubscribe = t.deps.events.bus.subscribe(taskStream(taskId), (event) => {
      if (match(event)) settle(event);
    });
    const timer = setTimeout(() => settle(new Error(`gave up waiting for ${what}`)), WAIT_LIMIT_MS);
    t.deps.events
      .replay(taskStream(taskId), 0)
      .then((past) => {
        const hit = past.find(match);
        if (hit) settle(hit);
      })
      .catch((error: unknown) => settle(error instanceof Error ? error : new Error(String(error))));
  });
}

export const isPhase = (phase: string) => (e: StoredEvent) =>
  e.type === 'phase-change' && e.data.phase === phase;

/** Polls the task's run until `done` holds (a bound against hangs, never an assertion on speed). */
export async function untilRun(
  setup: Pick<TaskSetup, 'client' | 'taskId'>,
  done: (run: RunStatusBody) => boolean,
  what: string,
): Promise<RunStatusBody> {
  const deadline = Date.now() + WAIT_LIMIT_MS;
  for (;;) {
    const run = await statusOf(setup.client, setup.taskId);
    if (done(run)) return run;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}: ${run.status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A run no longer running nor paused: passed, failed or cancelled. */
export const runEnded = (run: Pick<RunStatusBody, 'status'>) =>
  run.status !== 'running' && run.status !== 'paused';

/** Starts a run and waits until it is no longer executing; returns its final status. */
export async function runToEnd(
  t: TestApp,
  client: TestClient,
  taskId: string,
  body: Record<string, unknown> = {},
): Promise<RunStatusBody> {
  await startOk(client, taskId, body);
  await t.deps.orchestrator.idle();
  return statusOf(client, taskId);
}

export const callsBy = (run: Pick<PipelineRunDetail, 'calls'>, agent: AgentType) =>
  run.calls.filter((call) => call.agent === agent).length;

/** The phases a client sees, repeated announcements (one per subtask) folded into one. */
export function phaseSequence(events: StoredEvent[]): string[] {
  const phases: string[] = [];
  for (const e of events) {
    if (e.type !== 'phase-change') continue;
    if (phases.at(-1) !== e.data.phase) phases.push(e.data.phase);
  }
  return phases;
}

export function taskStatusSequence(events: StoredEvent[]): string[] {
  const statuses: string[] = [];
  for (const e of events) {
    if (e.type !== 'task-status') continue;
    if (statuses.at(-1) !== e.data.newStatus) statuses.push(e.data.newStatus);
  }
  return statuses;
}

/** The repository and default branch of a project, as the server keeps them. */
export async function repoOf(t: TestApp, projectId: string) {
  const [row] = await t.deps.db
    .select({ repoPath: projects.repoPath, defaultBranch: projects.defaultBranch })
    .from(projects)
    .where(eq(projects.id, projectId));
  if (!row) throw new Error('project not found');
  return row;
}

/** Columns the API does not show (the worktree's path). */
export async function runRow(t: TestApp, runId: string) {
  const [row] = await t.deps.db.select().from(pipelineRuns).where(eq(pipelineRuns.id, runId));
  if (!row) throw new Error('run not found');
  return row;
}

export const gitIn = (repoPath: string, args: string[]) => gitText(args, { cwd: repoPath });

/** True when `rev` names an object in the repository (`git cat-file -e`). */
export async function gitHas(repoPath: string, rev: string): Promise<boolean> {
  try {
    await gitText(['cat-file', '-e', rev], { cwd: repoPath });
    return true;
  } catch (error) {
    if (error instanceof GitError) return false;
    throw error;
  }
}

export async function commitSubjects(repoPath: string, range: string): Promise<string[]> {
  const out = await gitIn(repoPath, ['log', '--format=%s', range]);
  return out.split('\n').filter(Boolean);
}

export async function worktreePaths(repoPath: string): Promise<string[]> {
  const out = await gitIn(repoPath, ['worktree', 'list', '--porcelain']);
  return out
    .split('\n')
    .filter((line) => line.startsWith('worktree '))
    .map((line) => line.slice('worktree '.length));
}

export function history(client: TestClient, taskId: string) {
  return client.get<{ runs: PipelineRunSummary[] }>(`/api/pipeline/${taskId}/runs`);
}

/** The real app whose simulator is reached through a recording proxy (tests read prompts, hold calls). */
export interface ProxiedTestApp {
  t: TestApp;
  proxy: LlmProxy;
  /** The steps one agent of one run was asked to do: each step's first request (a tool loop makes more). */
  requestsOf(runId: string, agent: string): LlmProxy['requests'];
  close(): Promise<void>;
}

export async function createProxiedTestApp(): Promise<ProxiedTestApp> {
  const simulator = await startSimulator({ chunkDelayMs: 0 });
  const proxy = await startLlmProxy(simulator.url);
  const t = await createTestApp({ runtime: { simulatorUrl: proxy.url } });
  return {
    t,
    proxy,
    requestsOf: (runId, agent) =>
      proxy.requests.filter((r) => r.runId === runId && r.agent === agent && r.turn === 0),
    async close() {
      await t.close();
      await proxy.close();
      await simulator.close();
    },
  };
}
