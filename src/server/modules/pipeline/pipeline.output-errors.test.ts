import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '@/server/testing/test-app.js';
import { type LlmProxy, streamText } from './testing/llm-proxy.js';
import {
  callsBy,
  createProxiedTestApp,
  LONG_TEST_MS,
  newTask,
  type ProxiedTestApp,
  post,
  repoOf,
  runRow,
  startOk,
  statusOf,
  taskEvents,
  taskStatusOf,
} from './testing/run-kit.js';

let app: ProxiedTestApp;
let t: TestApp;
let proxy: LlmProxy;

beforeAll(async () => {
  app = await createProxiedTestApp();
  ({ t, proxy } = app);
});
afterAll(() => app.close());

const requestsOf = (runId: string, agent: string) => app.requestsOf(runId, agent);
/** The simulator counts a request's input tokens as a quarter of its characters. */
const simulatedInputTokens = (r: { system: string; prompt: string }) =>
  Math.max(1, Math.ceil((r.system + r.prompt).length / 4));

describe('output that does not parse', () => {
  it(
    'malformed@planner once: the planner asks again itself and the run passes, as one recorded call',
    async () => {
      const { client, taskId } = await newTask(t, { coderEngine: 'one-shot' });
      const runId = await startOk(client, taskId, { scenario: 'malformed@planner' });
      await t.deps.orchestrator.idle();
      const run = await statusOf(client, taskId);
      expect(run.status).toBe('passed');
      expect(callsBy(run, 'planner')).toBe(1);
      const asked = requestsOf(runId, 'planner');
      expect(asked).toHaveLength(2);
      expect(asked[1]?.prompt).toContain('could not be parsed');
      // Tokens of both attempts are counted in the one call.
      const planner = run.calls.find((c) => c.agent === 'planner');
      expect(planner?.inputTokens).toBe(simulatedInputTokens(asked[0]!) + simulatedInputTokens(asked[1]!));
      const notices = (await taskEvents(t, taskId)).filter(
        (e) => e.type === 'agent-log' && e.data.chunk.includes('asking once more'),
      );
      expect(notices).toHaveLength(1);
      expect(notices[0]?.type === 'agent-log' && notices[0].data.agent).toBe('planner');
    },
    LONG_TEST_MS,
  );

  it(
    'malformed@reviewer twice: pauses with a parse_error at the reviewer; a retry passes',
    async () => {
      const { client, taskId } = await newTask(t, { coderEngine: 'one-shot' });
      const runId = await startOk(client, taskId, { scenario: 'malformed@reviewer x2' });
      await t.deps.orchestrator.idle();
      const paused = await statusOf(client, taskId);
      expect(paused.status).toBe('paused');
      expect(paused.errorDetails).toMatchObject({
        type: 'parse_error',
        failedAgent: 'reviewer',
        failedPhase: 'reviewing',
        retryable: true,
        retryCount: 0,
      });
      expect(requestsOf(runId, 'reviewer')).toHaveLength(2);
      expect(await taskStatusOf(client, taskId)).toBe('building');

      expect((await post(client, `/api/pipeline/${taskId}/retry`)).status).toBe(202);
      await t.deps.orchestrator.idle();
      const passed = await statusOf(client, taskId);
      expect(passed.status).toBe('passed');
      expect(callsBy(passed, 'coder')).toBe(passed.subtasks.length);
      expect(requestsOf(runId, 'coder')).toHaveLength(passed.subtasks.length);
    },
    LONG_TEST_MS,
  );
});

describe('a coder that writes outside its worktree', () => {
  it(
    'is refused as a whole (INVALID_AGENT_OUTPUT → paused parse_error) and writes nothing; a retry recovers',
    async () => {
      const { client, taskId, projectId } = await newTask(t, {
        title: 'Escape attempt',
        coderEngine: 'one-shot',
      });
      const { repoPath } = await repoOf(t, projectId);
      const gitConfigBefore = await readFile(path.join(repoPath, '.git', 'config'), 'utf8');
      const answer = {
        files: [
          {
            filePath: 'src/harmless.ts',
            language: 'typescript',
            content: 'export const ok = 1;\n',
            action: 'create',
          },
          { filePath: '../escape.txt', language: 'text', content: 'escaped\n', action: 'create' },
          { filePath: '.git/config', language: 'ini', content: '[core]\n\tbare = true\n', action: 'modify' },
          { filePath: '/tmp/autocoder-absolute.txt', language: 'text', content: 'abs\n', action: 'create' },
        ],
      };
      proxy.respondWith((seen, res) => {
        if (seen.agent !== 'coder') return false;
        streamText(res, `Here you go.\n\n\`\`\`json\n${JSON.stringify(answer)}\n\`\`\`\n`);
        return true;
      });
      let runId: string;
      try {
        runId = await startOk(client, taskId);
        await t.deps.orchestrator.idle();
      } finally {
        proxy.respondWith(undefined);
      }
      const paused = await statusOf(client, taskId);
      expect(paused.status).toBe('paused');
      expect(paused.errorDetails).toMatchObject({
        type: 'parse_error',
        failedAgent: 'coder',
        failedPhase: 'coding',
        retryable: true,
      });
      expect(paused.errorDetails?.message).toContain('../escape.txt');
      expect(paused.errorDetails?.message).toContain('.git/config');
      expect(paused.errorDetails?.message).toContain('/tmp/autocoder-absolute.txt');
      expect(paused.errorDetails?.message).not.toContain('src/harmless.ts');

      const worktree = (await runRow(t, runId)).worktreePath!;
      expect(existsSync(path.join(worktree, 'src', 'harmless.ts'))).toBe(false);
      expect(existsSync(path.join(path.dirname(worktree), 'escape.txt'))).toBe(false);
      expect(existsSync('/tmp/autocoder-absolute.txt')).toBe(false);
      expect(await readFile(path.join(repoPath, '.git', 'config'), 'utf8')).toBe(gitConfigBefore);
      expect(paused.headCommit).toBeNull();
      expect(paused.fileChanges.files).toEqual([]);

      expect((await post(client, `/api/pipeline/${taskId}/retry`)).status).toBe(202);
      await t.deps.orchestrator.idle();
      const passed = await statusOf(client, taskId);
      expect(passed.status).toBe('passed');
      expect(passed.fileChanges.files.map((f) => f.filePath)).not.toContain('src/harmless.ts');
    },
    LONG_TEST_MS,
  );
});
