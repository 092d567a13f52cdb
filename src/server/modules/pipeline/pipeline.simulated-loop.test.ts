import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles } from '../workspace/test-repo.js';
import {
  createProxiedTestApp,
  gitIn,
  LONG_TEST_MS,
  newTask,
  type ProxiedTestApp,
  repoOf,
  runToEnd,
  startOk,
  statusOf,
  taskEvents,
} from './testing/run-kit.js';

/**
 * The offline demo with the tool loop: the simulator plays a coder that lists, reads, searches,
 * edits and finishes, and the directives play what goes wrong.
 */
let env: ProxiedTestApp;
beforeAll(async () => {
  env = await createProxiedTestApp();
});
afterAll(() => env.close());

describe('the simulated tool-using coder', () => {
  it(
    'runs a task to a pass with tools: one commit per subtask, each tool call on the timeline',
    async () => {
      const { client, taskId, projectId } = await newTask(env.t, { title: 'Add a greeting module' });
      const run = await runToEnd(env.t, client, taskId);
      expect(run.status).toBe('passed');
      const coderCalls = run.calls.filter((call) => call.agent === 'coder');
      expect(coderCalls).toHaveLength(run.subtasks.length);
      expect(coderCalls.every((call) => (call.toolCalls ?? 0) >= 2)).toBe(true);
      const { repoPath } = await repoOf(env.t, projectId);
      expect(Number(await gitIn(repoPath, ['rev-list', '--count', `${run.baseCommit}..${run.branch}`]))).toBe(
        run.subtasks.length,
      );
      const events = await taskEvents(env.t, taskId);
      const results = events.filter((e) => e.type === 'agent-tool-result');
      expect(results.length).toBeGreaterThan(0);
      expect(results.every((e) => e.type === 'agent-tool-result' && e.data.ok)).toBe(true);
      // The planner and the reviewer looked at the repository before answering.
      const agents = new Set(events.flatMap((e) => (e.type === 'agent-tool-call' ? [e.data.agent] : [])));
      expect([...agents].sort()).toEqual(['coder', 'planner', 'reviewer']);
    },
    LONG_TEST_MS,
  );

  it(
    'big-edit: a large file is edited in place, one line of it',
    async () => {
      const lines = Array.from({ length: 6000 }, (_, i) => `export const item${i} = ${i};`);
      const { client, taskId, projectId } = await newTask(env.t, {
        title: 'Tweak the table',
        description: 'Change one entry. [simulate: big-edit=src/table.ts]',
      });
      const { repoPath } = await repoOf(env.t, projectId);
      await commitFiles(repoPath, { 'src/table.ts': `${lines.join('\n')}\n` }, 'A big table');
      const run = await runToEnd(env.t, client, taskId);
      expect(run.status).toBe('passed');
      // Every step (one per subtask) changed one line of it, in place; the rest of it is as it was.
      const commits = (await gitIn(repoPath, ['rev-list', '--reverse', `${run.baseCommit}..${run.branch}`]))
        .trim()
        .split('\n');
      expect(commits).toHaveLength(run.subtasks.length);
      for (const commit of commits) {
        const numstat = await gitIn(repoPath, [
          'diff',
          '--numstat',
          `${commit}~1`,
          commit,
          '--',
          'src/table.ts',
        ]);
        expect(numstat).toBe('1\t1\tsrc/table.ts\n');
      }
    },
    LONG_TEST_MS,
  );

  it(
    'edit-miss: an edit that does not match comes back as a tool error, and the coder recovers',
    async () => {
      const { client, taskId } = await newTask(env.t, {
        title: 'Add a farewell module',
        description: 'Say goodbye. [simulate: edit-miss@coder]',
      });
      const run = await runToEnd(env.t, client, taskId);
      expect(run.status).toBe('passed');
      const results = (await taskEvents(env.t, taskId)).filter((e) => e.type === 'agent-tool-result');
      expect(results.some((e) => e.type === 'agent-tool-result' && !e.data.ok)).toBe(true);
    },
    LONG_TEST_MS,
  );

  it.each([
    ['loop@coder', /tool calls \(the project's maxToolCalls\) without finishing/],
    ['bad-calls@coder', /5 bad tool calls in a row/],
  ])(
    '%s pauses the run with agent_stuck',
    async (directive, message) => {
      const { client, taskId, projectId } = await newTask(env.t, {
        title: `Stuck ${directive}`,
        description: `Go nowhere. [simulate: ${directive}]`,
      });
      expect((await client.patch(`/api/projects/${projectId}`, { maxToolCalls: 12 })).status).toBe(200);
      await startOk(client, taskId);
      await env.t.deps.orchestrator.idle();
      const run = await statusOf(client, taskId);
      expect(run.status).toBe('paused');
      expect(run.errorDetails).toMatchObject({ type: 'agent_stuck', failedAgent: 'coder', retryable: true });
      expect(run.errorDetails?.message).toMatch(message);
    },
    LONG_TEST_MS,
  );
});
