import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostStatusResponse } from '@/contracts/coordination.js';
import type { StoredEvent } from '@/contracts/pipeline.js';
import type { CoderEngineId } from '@/contracts/projects.js';
import { startSimulator } from '@/server/modules/llm/simulator/server.js';
import {
  gitIn,
  LONG_TEST_MS,
  newTask,
  post,
  repoOf,
  runEnded,
  startOk,
  startRun,
  type TaskSetup,
  taskEvents,
  untilRun,
} from '@/server/modules/pipeline/testing/run-kit.js';
import { createTestApp, type TestApp } from '@/server/testing/test-app.js';
import { engineTestsSkipped } from './engine-testing.js';

/**
 * Claude Code and Codex as the coder of the whole pipeline, offline: the real CLIs in the real
 * sandbox, the built-in simulator as their model (through the relay), the real app around them.
 */
const PATH = process.env.PATH ?? '/usr/bin:/bin';
const required = process.env.AUTOCODER_TEST_ENGINES === 'required';
const skipped =
  engineTestsSkipped('claude-code', required, PATH) || engineTestsSkipped('codex', required, PATH);
/** The person's key for the Anthropic provider (the simulator plays Anthropic here). */
const KEY = `sk-ant-api03-${'k'.repeat(24)}-person-key-0123456789`;

let t: TestApp;
let simulator: Awaited<ReturnType<typeof startSimulator>>;
const logLines: string[] = [];

beforeAll(async () => {
  if (skipped) return;
  simulator = await startSimulator({ chunkDelayMs: 0 });
  t = await createTestApp({
    logLines,
    runtime: {
      simulatorUrl: simulator.url,
      providerDefaults: { anthropicBaseUrl: simulator.url },
      lockWaitMs: 300,
    },
  });
});
afterAll(async () => {
  await t?.close();
  await simulator?.close();
});

const until = untilRun;

const ended = runEnded;

async function agentWriting(setup: TaskSetup, file: string) {
  const token = await setup.client.post<{ token: string }>('/api/tokens', { name: 'Alice' });
  const repo = await repoOf(t, setup.projectId);
  const call = async (status: string, message: string, extra: Record<string, unknown> = {}) => {
    const res = await t.app.request('http://localhost/api/post_status', {
      method: 'POST',
      headers: {
        host: 'localhost',
        authorization: `Bearer ${token.body.token}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        repo_url: `http://localhost/git/${setup.projectId}.git`,
        branch: repo.defaultBranch,
        file_paths: [file],
        status,
        message,
        ...extra,
      }),
    });
    return (await res.json()) as PostStatusResponse;
  };
  expect((await call('WRITING', 'Alice rewrites the greeting.')).success).toBe(true);
  const head = (await gitIn(repo.repoPath, ['rev-parse', repo.defaultBranch])).trim();
  return { release: () => call('OPEN', 'Alice is done.', { new_repo_head: head }) };
}

const coderCalls = (events: StoredEvent[]) =>
  events.flatMap((e) => (e.type === 'agent-tool-call' && e.data.agent === 'coder' ? [e.data] : []));

describe.skipIf(skipped)('external coder engines through the pipeline (offline, real CLIs)', () => {
  for (const engine of ['claude-code', 'codex'] as CoderEngineId[]) {
    it(
      `${engine}: codes every subtask in the sandbox, the check gate and the review run, approve merges`,
      async () => {
        const setup = await newTask(t, { coderEngine: engine, title: 'Add greeting helper' });
        expect(
          (
            await setup.client.patch(`/api/projects/${setup.projectId}`, {
              checkCommand: 'test -f src/add-greeting-helper.ts',
            })
          ).status,
        ).toBe(200);
        await startOk(setup.client, setup.taskId);
        const run = await until(setup, ended, 'the end of the run');
        expect(run.status).toBe('passed');
        const repo = await repoOf(t, setup.projectId);
        const commits = await gitIn(repo.repoPath, [
          'rev-list',
          '--count',
          `${run.baseCommit}..${run.branch}`,
        ]);
        expect(Number(commits)).toBe(run.subtasks.length);
        expect(run.fileChanges?.files.length ?? 0).toBeGreaterThan(0);

        const events = await taskEvents(t, setup.taskId);
        const calls = coderCalls(events);
        expect(calls.length).toBeGreaterThan(0);
        expect(calls.every((call) => call.engine === engine)).toBe(true);
        const results = events.filter((e) => e.type === 'agent-tool-result' && e.data.agent === 'coder');
        expect(results.length).toBe(calls.length);
        expect(events.some((e) => e.type === 'check-result' || e.type.startsWith('check'))).toBe(true);
        expect(run.calls.filter((c) => c.agent === 'coder').every((c) => (c.toolCalls ?? 0) > 0)).toBe(true);
        expect(run.calls.some((c) => c.agent === 'reviewer')).toBe(true);

        const approved = await post<{ mergeCommit: string }>(
          setup.client,
          `/api/pipeline/${setup.taskId}/approve`,
        );
        expect(approved.status).toBe(200);
        expect(
          await gitIn(repo.repoPath, ['merge-base', '--is-ancestor', run.branch ?? '', repo.defaultBranch]),
        ).toBe('');
      },
      LONG_TEST_MS,
    );
  }

  it(
    'claude-code: an edit of a file another agent is writing is denied with their name',
    async () => {
      const setup = await newTask(t, { coderEngine: 'claude-code', title: 'Add greeting helper' });
      await agentWriting(setup, 'src/add-greeting-helper.ts');
      await startOk(setup.client, setup.taskId);
      await until(setup, ended, 'the end of the run');
      const denied = (await taskEvents(t, setup.taskId)).filter(
        (e) => e.type === 'agent-tool-result' && !e.data.ok && e.data.summary.includes('Alice'),
      );
      expect(denied.length).toBeGreaterThan(0);
    },
    LONG_TEST_MS,
  );

  it(
    'codex: a change to a file another agent is writing is not committed until they release it',
    async () => {
      // This Codex does not ask for the lock first (its MCP lock tool is left unused).
      const setup = await newTask(t, {
        coderEngine: 'codex',
        title: 'Add greeting helper',
        description: 'A function that greets a person by name. [simulate: engine-no-locks]',
      });
      const alice = await agentWriting(setup, 'src/add-greeting-helper.ts');
      await startOk(setup.client, setup.taskId);
      const paused = await until(setup, (run) => run.status === 'paused', 'the pause');
      expect(paused.errorDetails).toMatchObject({ type: 'lock_conflict', retryable: true });
      expect(paused.errorDetails?.message).toContain('Alice');
      const repo = await repoOf(t, setup.projectId);
      expect(
        await gitIn(repo.repoPath, ['log', '--format=%s', `${repo.defaultBranch}..${paused.branch}`]),
      ).toBe('');

      expect((await alice.release()).success).toBe(true);
      expect((await post(setup.client, `/api/pipeline/${setup.taskId}/retry`)).status).toBe(202);
      const run = await until(setup, ended, 'the end of the run');
      expect(run.status).toBe('passed');
      expect(
        await gitIn(repo.repoPath, ['log', '--format=%s', `${repo.defaultBranch}..${run.branch}`]),
      ).not.toBe('');
    },
    LONG_TEST_MS,
  );

  it(
    'codex: AutoCoder’s lock tool (MCP) answers with the holder’s name, and Codex leaves their file alone',
    async () => {
      const setup = await newTask(t, { coderEngine: 'codex', title: 'Add greeting helper' });
      await agentWriting(setup, 'src/add-greeting-helper.ts');
      await startOk(setup.client, setup.taskId);
      await until(setup, ended, 'the end of the run');
      const events = await taskEvents(t, setup.taskId);
      const lockCalls = coderCalls(events).filter((call) => call.tool === 'mcp_tool_call');
      expect(lockCalls.length).toBeGreaterThan(0);
      expect(lockCalls[0]?.input).toMatchObject({ server: 'autocoder', tool: 'lock_file' });
      const refused = events.filter(
        (e) =>
          e.type === 'agent-tool-result' &&
          !e.data.ok &&
          lockCalls.some((call) => call.callId === e.data.callId) &&
          e.data.summary.includes('Alice'),
      );
      expect(refused.length).toBeGreaterThan(0);
    },
    LONG_TEST_MS,
  );

  it(
    'the person’s key never reaches an event, a log line or the database',
    async () => {
      const setup = await newTask(t, { coderEngine: 'claude-code', title: 'Add greeting helper' });
      const start = await startRun(
        setup.client,
        setup.taskId,
        { provider: 'anthropic' },
        { 'x-anthropic-key': KEY },
      );
      expect(start.status).toBe(202);
      const run = await until(setup, ended, 'the end of the run');
      expect(run.status).toBe('passed');
      expect(coderCalls(await taskEvents(t, setup.taskId)).length).toBeGreaterThan(0);

      expect(JSON.stringify(await taskEvents(t, setup.taskId))).not.toContain(KEY);
      expect(logLines.join('\n')).not.toContain(KEY);
      const rowsOf = async (query: ReturnType<typeof sql.raw>) =>
        ((await t.database.db.execute(query)) as unknown as { rows: Record<string, unknown>[] }).rows;
      const names = (
        await rowsOf(
          sql.raw(
            "select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'",
          ),
        )
      ).map((row) => String(row.table_name));
      expect(names).toContain('pipeline_runs');
      for (const name of names) {
        expect(JSON.stringify(await rowsOf(sql.raw(`select * from "${name}"`))), name).not.toContain(KEY);
      }
    },
    LONG_TEST_MS,
  );
});
