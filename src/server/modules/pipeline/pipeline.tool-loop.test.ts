import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentToolCallData, AgentToolResultData, StoredEvent } from '@/contracts/pipeline.js';
import { pidsRunning } from '@/server/modules/sandbox/sandbox-testing.js';
import { createTestApp, type TestApp } from '@/server/testing/test-app.js';
import {
  type ScriptedEndpoint,
  type ScriptedRequest,
  type ScriptedTurn,
  startScriptedEndpoint,
} from '../agent-tools/testing/scripted-endpoint.js';
import { commitFiles } from '../workspace/test-repo.js';
import {
  gitIn,
  LONG_TEST_MS,
  newTask,
  post,
  projectEvents,
  repoOf,
  startRun,
  statusOf,
  type TaskSetup,
  taskEvents,
  WAIT_LIMIT_MS,
  waitForEvent,
} from './testing/run-kit.js';

/**
 * Issue 24's acceptance through the whole app: a run whose model is a stand-in Anthropic or
 * OpenAI-compatible endpoint playing scripted tool calls over HTTP, through the real SDKs; the
 * tools act on the run's real worktree, under the real locks, with the real sandboxed check.
 */
let t: TestApp;
let endpoint: ScriptedEndpoint;
/** The coder's script of the test running now (planner and reviewer answer the same every time). */
let coder: (request: ScriptedRequest) => ScriptedTurn | Promise<ScriptedTurn>;
const KEY = 'sk-ant-test-0123456789abcdef';

const PLAN = {
  subtasks: [
    {
      id: 'st-1',
      title: 'Make the answer 42',
      description: 'Change answer() to return 42.',
      order: 1,
      files: ['src/big.ts'],
    },
  ],
};
const PASS = { passed: true, score: 90, findings: [] };

beforeAll(async () => {
  endpoint = await startScriptedEndpoint((request) => {
    if (request.agent === 'planner') return { text: `\`\`\`json\n${JSON.stringify(PLAN)}\n\`\`\`` };
    if (request.agent === 'reviewer') return { text: `\`\`\`json\n${JSON.stringify(PASS)}\n\`\`\`` };
    return coder(request);
  });
  t = await createTestApp({
    runtime: { providerDefaults: { anthropicBaseUrl: endpoint.url }, lockWaitMs: WAIT_LIMIT_MS },
  });
});
afterAll(async () => {
  await t.close();
  await endpoint.close();
});

/** About 250 KB of TypeScript, one line of it to change. */
function bigFile(): string {
  const lines = Array.from(
    { length: 6000 },
    (_, i) => `export const value${i} = ${i}; // generated line ${i}, padded`,
  );
  lines[3000] = 'export function answer() { return 41; }';
  return `${lines.join('\n')}\n`;
}
const BIG = bigFile();

async function taskWithBigFile(title: string): Promise<TaskSetup> {
  const setup = await newTask(t, { title });
  const { repoPath } = await repoOf(t, setup.projectId);
  await commitFiles(repoPath, { 'src/big.ts': BIG }, 'A big file');
  return setup;
}

function start(setup: TaskSetup, protocol: 'anthropic' | 'openai') {
  return protocol === 'anthropic'
    ? startRun(setup.client, setup.taskId, { provider: 'anthropic' }, { 'x-anthropic-key': KEY })
    : startRun(setup.client, setup.taskId, { provider: 'openai', openaiBaseUrl: `${endpoint.url}/v1` });
}

/** read, edit one line, finish. */
const EDIT_ONE_LINE: ((request: ScriptedRequest) => ScriptedTurn)[] = [
  () => ({
    text: 'Let me find it.',
    calls: [{ name: 'read_file', input: { path: 'src/big.ts', startLine: 2999, endLine: 3003 } }],
  }),
  () => ({
    calls: [
      { name: 'edit_file', input: { path: 'src/big.ts', oldText: 'return 41;', newText: 'return 42;' } },
    ],
  }),
  () => ({ calls: [{ name: 'finish', input: { summary: 'answer() returns 42.' } }] }),
];
const scripted =
  (turns: ((request: ScriptedRequest) => ScriptedTurn)[]) =>
  (request: ScriptedRequest): ScriptedTurn =>
    (turns[Math.min(request.turn, turns.length - 1)] as (r: ScriptedRequest) => ScriptedTurn)(request);

/** A task on the big file whose project has `checkCommand`, started over Anthropic with `turns` for the coder. */
async function startWithCheck(
  title: string,
  checkCommand: string,
  turns: ((request: ScriptedRequest) => ScriptedTurn)[],
): Promise<TaskSetup> {
  coder = scripted(turns);
  const setup = await taskWithBigFile(title);
  expect((await setup.client.patch(`/api/projects/${setup.projectId}`, { checkCommand })).status).toBe(200);
  expect((await start(setup, 'anthropic')).status).toBe(202);
  return setup;
}

const toolEvents = (events: StoredEvent[]) =>
  events.filter((e) => e.type === 'agent-tool-call' || e.type === 'agent-tool-result') as (StoredEvent & {
    data: AgentToolCallData & AgentToolResultData;
  })[];

describe.each(['anthropic', 'openai'] as const)('the tool-using coder over %s', (protocol) => {
  it(
    'changes one line of a 250 KB file: every other byte is unchanged on the branch, the timeline tells each call, review passes',
    async () => {
      coder = scripted(EDIT_ONE_LINE);
      const setup = await taskWithBigFile(`One line over ${protocol}`);
      expect((await start(setup, protocol)).status).toBe(202);
      await t.deps.orchestrator.idle();
      const run = await statusOf(setup.client, setup.taskId);
      expect(run).toMatchObject({ status: 'passed', phase: 'completed' });

      const { repoPath, defaultBranch } = await repoOf(t, setup.projectId);
      expect(await gitIn(repoPath, ['show', `${run.branch}:src/big.ts`])).toBe(
        BIG.replace('return 41;', 'return 42;'),
      );
      expect(await gitIn(repoPath, ['diff', '--numstat', `${defaultBranch}...${run.branch}`])).toBe(
        '1\t1\tsrc/big.ts\n',
      );
      expect(await gitIn(repoPath, ['log', '--format=%s', `${defaultBranch}..${run.branch}`])).toBe(
        'Make the answer 42\n',
      );

      const coderCall = run.calls.find((c) => c.agent === 'coder');
      expect(coderCall).toMatchObject({ toolCalls: 3, turns: 3 });
      expect(coderCall?.cacheReadTokens).toBeGreaterThan(0);

      const timeline = toolEvents(await taskEvents(t, setup.taskId)).filter((e) => e.data.agent === 'coder');
      expect(timeline.map((e) => [e.type, e.data.tool ?? e.data.summary])).toEqual([
        ['agent-tool-call', 'read_file'],
        ['agent-tool-result', 'Read src/big.ts lines 2999–3003 of 6000'],
        ['agent-tool-call', 'edit_file'],
        ['agent-tool-result', 'Edited src/big.ts +1 −1'],
        ['agent-tool-call', 'finish'],
        ['agent-tool-result', 'Finished: answer() returns 42.'],
      ]);
      const edited = timeline[3]?.data;
      expect(edited?.change).toMatchObject({ path: 'src/big.ts', added: 1, removed: 1 });
      expect(edited?.change?.patch).toContain('-return 41;');
      expect(edited?.change?.patch).toContain('+return 42;');

      // Review and approve work as before: the branch merges.
      expect((await post(setup.client, `/api/pipeline/${setup.taskId}/approve`)).status).toBe(200);
      expect(await gitIn(repoPath, ['show', `${defaultBranch}:src/big.ts`])).toBe(
        BIG.replace('return 41;', 'return 42;'),
      );
    },
    LONG_TEST_MS,
  );

  it(
    'pauses with agent_stuck after 5 bad calls in a row, committing nothing; a .git path and a path outside are tool errors',
    async () => {
      let turn = 0;
      coder = () => {
        turn++;
        const bad = [
          { name: 'write_file', input: { path: '.git/config', content: '[core]\n\tfsmonitor = evil\n' } },
          { name: 'edit_file', input: { path: '../../escape.ts', oldText: 'a', newText: 'b' } },
          { name: 'read_file', input: { path: '/etc/passwd' } },
          { name: 'no_such_tool', input: {} },
          { name: 'edit_file', input: { path: 'src/big.ts', oldText: 'not in the file', newText: 'x' } },
        ];
        return { calls: [bad[(turn - 1) % bad.length] as { name: string; input: Record<string, unknown> }] };
      };
      const setup = await taskWithBigFile(`Stuck over ${protocol}`);
      expect((await start(setup, protocol)).status).toBe(202);
      await t.deps.orchestrator.idle();
      const run = await statusOf(setup.client, setup.taskId);
      expect(run.status).toBe('paused');
      expect(run.errorDetails).toMatchObject({ type: 'agent_stuck', failedAgent: 'coder', retryable: true });
      expect(run.errorDetails?.message).toMatch(/5 bad tool calls in a row/);
      const { repoPath, defaultBranch } = await repoOf(t, setup.projectId);
      expect(await gitIn(repoPath, ['log', '--format=%s', `${defaultBranch}..${run.branch}`])).toBe('');
      const results = toolEvents(await taskEvents(t, setup.taskId)).filter(
        (e) => e.type === 'agent-tool-result' && e.data.agent === 'coder',
      );
      expect(results.map((e) => e.data.ok)).toEqual([false, false, false, false, false]);
      // Nothing reached git's own files.
      expect(await readFile(path.join(repoPath, '.git', 'config'), 'utf8')).not.toContain('evil');
    },
    LONG_TEST_MS,
  );
});

describe("the coder's own check and the gate", () => {
  const checkResults = async (taskId: string) =>
    (await taskEvents(t, taskId)).filter((e) => e.type === 'check-result');

  it(
    'takes the result of a passing check the coder ran on the final tree, without running it again',
    async () => {
      const setup = await startWithCheck('Checked by the coder', 'grep -q "return 42" src/big.ts', [
        ...EDIT_ONE_LINE.slice(0, 2),
        () => ({ calls: [{ name: 'run_check', input: {} }] }),
        () => ({ calls: [{ name: 'finish', input: { summary: 'checked' } }] }),
      ]);
      await t.deps.orchestrator.idle();
      expect((await statusOf(setup.client, setup.taskId)).status).toBe('passed');
      const results = await checkResults(setup.taskId);
      expect(results.map((e) => e.type === 'check-result' && e.data.passed)).toEqual([true]);
      const told = toolEvents(await taskEvents(t, setup.taskId)).find((e) =>
        e.data.summary?.startsWith('Ran the check'),
      );
      expect(told?.data).toMatchObject({
        ok: true,
        summary: 'Ran the check — passed',
        check: { passed: true, exitCode: 0 },
      });
    },
    LONG_TEST_MS,
  );

  it(
    'runs the check again at the gate when the coder changed the tree after its check',
    async () => {
      const setup = await startWithCheck('Changed after the check', 'grep -q "return 42" src/big.ts', [
        () => ({ calls: [{ name: 'run_check', input: {} }] }),
        ...EDIT_ONE_LINE.slice(1),
      ]);
      await t.deps.orchestrator.idle();
      expect((await statusOf(setup.client, setup.taskId)).status).toBe('passed');
      const results = await checkResults(setup.taskId);
      expect(results.map((e) => e.type === 'check-result' && e.data.passed)).toEqual([false, true]);
    },
    LONG_TEST_MS,
  );
});

describe('what a step committed', () => {
  it(
    "is listed from the commit's blobs: a link the check left names its target, never the content of a file outside",
    async () => {
      const scratch = await mkdtemp(path.join(tmpdir(), 'autocoder-leak-'));
      const secret = path.join(scratch, 'secret.txt');
      await writeFile(secret, "another user's secret\n");
      const setup = await startWithCheck('A link out', `ln -s ${secret} leak.txt`, [
        () => ({ calls: [{ name: 'run_check', input: {} }] }),
        () => ({ calls: [{ name: 'finish', input: { summary: 'checked' } }] }),
      ]);
      await t.deps.orchestrator.idle();
      const run = await statusOf(setup.client, setup.taskId);
      const listed = run.fileChanges.files.find((file) => file.filePath === 'leak.txt');
      expect(listed).toMatchObject({ action: 'create', content: secret });
      expect(JSON.stringify(run)).not.toContain("another user's secret");
      await rm(scratch, { recursive: true, force: true });
    },
    LONG_TEST_MS,
  );
});

describe('cancel during run_check', () => {
  it(
    "ends the check's processes at once and the run is cancelled",
    async () => {
      const setup = await startWithCheck(
        'Cancel the agent check',
        'echo started; sleep 765443 & sleep 765444; wait',
        [() => ({ calls: [{ name: 'run_check', input: {} }] })],
      );
      await waitForEvent(
        t,
        setup.taskId,
        (e) => e.type === 'check-log' && e.data.chunk.includes('started'),
        'the check to start',
      );
      expect((await pidsRunning('sleep 76544')).length).toBeGreaterThan(0);
      expect((await post(setup.client, `/api/pipeline/${setup.taskId}/cancel`)).status).toBe(200);
      await t.deps.orchestrator.idle();
      expect(await pidsRunning('sleep 76544')).toEqual([]);
      expect(await statusOf(setup.client, setup.taskId)).toMatchObject({ status: 'cancelled' });
    },
    LONG_TEST_MS,
  );
});

describe("another agent's WRITING lock", () => {
  it(
    'holds the edit until the agent lets go; then the file is written and the run passes',
    async () => {
      coder = scripted(EDIT_ONE_LINE);
      const setup = await taskWithBigFile('Wait for Alice');
      const token = await setup.client.post<{ token: string }>('/api/tokens', { name: 'Alice' });
      expect(token.status).toBe(201);
      const { repoPath, defaultBranch } = await repoOf(t, setup.projectId);
      const postStatus = async (status: string, extra: Record<string, unknown> = {}) => {
        const res = await t.app.request('http://localhost/api/post_status', {
          method: 'POST',
          headers: {
            host: 'localhost',
            authorization: `Bearer ${token.body.token}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify({
            repo_url: `http://localhost/git/${setup.projectId}.git`,
            branch: defaultBranch,
            file_paths: ['src/big.ts'],
            status,
            message: 'Alice edits the big file.',
            ...extra,
          }),
        });
        expect(res.status).toBe(200);
      };
      await postStatus('WRITING');

      expect((await start(setup, 'anthropic')).status).toBe(202);
      // The run asked for the file and was refused once: it is waiting.
      for (const deadline = Date.now() + WAIT_LIMIT_MS; ; ) {
        const events = await projectEvents(t, setup.projectId);
        if (
          events.some(
            (e) => e.type === 'lock-refused' && (e.data as { taskId?: string }).taskId === setup.taskId,
          )
        )
          break;
        if (Date.now() > deadline) throw new Error('the run never asked for the lock');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const running = await statusOf(setup.client, setup.taskId);
      const worktree = (await gitIn(repoPath, ['worktree', 'list', '--porcelain']))
        .split('\n')
        .filter((line) => line.startsWith('worktree '))
        .map((line) => line.slice('worktree '.length))
        .find((dir) => dir !== repoPath);
      expect(running.status).toBe('running');
      expect(worktree).toBeDefined();
      expect(await readFile(path.join(worktree as string, 'src/big.ts'), 'utf8')).toBe(BIG);

      const head = (await gitIn(repoPath, ['rev-parse', defaultBranch])).trim();
      await postStatus('OPEN', { new_repo_head: head });
      await t.deps.orchestrator.idle();
      const run = await statusOf(setup.client, setup.taskId);
      expect(run.status).toBe('passed');
      expect(await gitIn(repoPath, ['show', `${run.branch}:src/big.ts`])).toBe(
        BIG.replace('return 41;', 'return 42;'),
      );
    },
    LONG_TEST_MS,
  );
});
