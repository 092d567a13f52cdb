// The planner and reviewer with read-only tools, faults in tool conversations, and requests the API refuses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reviewResultSchema, subtaskListSchema } from '@/contracts/pipeline.js';
import {
  anthropicTools,
  READ_ONLY_TOOLS,
  toolDeclarations,
} from '@/server/modules/agent-tools/tool-declarations.js';
import { answerFor } from './agents.js';
import { parsePrompt } from './prompt.js';
import {
  coderPrompt,
  GREETING,
  jsonOf,
  plannerPrompt,
  reviewerPrompt,
  systemFor,
} from './prompt-fixtures.js';
import { parseScenario } from './scenario.js';
import { type SimulatorHandle, startSimulator } from './server.js';
import { callNames, driveAnthropic, driveOpenAi, tempRepo, tinyExecutor } from './tool-test-kit.js';

let sim: SimulatorHandle;
beforeAll(async () => {
  sim = await startSimulator({ port: 0, chunkDelayMs: 0 });
});
afterAll(() => sim.close());

let runs = 0;
function post(path: string, body: unknown, scenario?: string) {
  return fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': 'k',
      'x-autocoder-run-id': `tool-agents-${++runs}`,
      ...(scenario ? { 'x-simulator-scenario': scenario } : {}),
    },
    body: JSON.stringify(body),
  });
}

const TOOLS = anthropicTools(toolDeclarations());
const CODER = coderPrompt(GREETING, { subtask: { index: 1, total: 3, title: 'Create it' } });

describe('planner and reviewer with read-only tools', () => {
  it('the planner lists the files once, then gives the one-shot planner’s JSON, ending its turn', async () => {
    const repo = await tempRepo({ 'README.md': '# x\n' });
    try {
      for (const drive of [driveAnthropic, driveOpenAi]) {
        const t = await drive({
          url: sim.url,
          system: systemFor('planner'),
          prompt: plannerPrompt(GREETING),
          tools: READ_ONLY_TOOLS,
          exec: tinyExecutor(repo.root),
          runId: `tool-agents-${++runs}`,
        });
        expect(callNames(t)).toEqual([['list_files'], []]);
        expect(t.turns[1]!.stop).toMatch(/^(end_turn|stop)$/);
        const oneShot = answerFor(
          parsePrompt(systemFor('planner'), plannerPrompt(GREETING)),
          parseScenario(''),
        );
        expect(t.turns[1]!.text).toBe(oneShot);
        expect(subtaskListSchema.parse(jsonOf(t.turns[1]!.text)).subtasks.length).toBeGreaterThan(1);
      }
    } finally {
      await repo.cleanup();
    }
  });

  it('the reviewer reads the first changed file, then reviews (review-fails applies)', async () => {
    const repo = await tempRepo({ 'src/a.ts': 'export const a = 1;\n' });
    try {
      const t = await driveAnthropic({
        url: sim.url,
        system: systemFor('reviewer'),
        prompt: reviewerPrompt(GREETING, 0, ['src/a.ts']),
        tools: READ_ONLY_TOOLS,
        exec: tinyExecutor(repo.root),
        runId: `tool-agents-${++runs}`,
        scenario: 'review-fails=1',
      });
      expect(t.turns[0]!.calls).toMatchObject([{ name: 'read_file', input: { path: 'src/a.ts' }, ok: true }]);
      expect(reviewResultSchema.parse(jsonOf(t.turns[1]!.text)).passed).toBe(false);
    } finally {
      await repo.cleanup();
    }
  });

  it('answers in prose at once under tool_choice none, and never calls a tool then', async () => {
    const res = await post('/v1/messages', {
      model: 'm',
      max_tokens: 4096,
      system: systemFor('planner'),
      tools: anthropicTools(toolDeclarations(READ_ONLY_TOOLS)),
      tool_choice: { type: 'none' },
      messages: [{ role: 'user', content: plannerPrompt(GREETING) }],
    });
    const message = await res.json();
    expect(message.stop_reason).toBe('end_turn');
    expect(message.content.map((b: { type: string }) => b.type)).toEqual(['text']);
    subtaskListSchema.parse(jsonOf(message.content[0].text));
  });
});

describe('faults in a tool conversation', () => {
  const body = { model: 'm', max_tokens: 4096, system: systemFor('coder'), tools: TOOLS };
  it('malformed@coder: prose and no call; error=…: the status; a tiny max_tokens: no call, max_tokens', async () => {
    const malformed = await post(
      '/v1/messages',
      { ...body, messages: [{ role: 'user', content: CODER }] },
      'malformed@coder',
    );
    const message = await malformed.json();
    expect(message.stop_reason).toBe('end_turn');
    expect(message.content).toEqual([
      { type: 'text', text: expect.stringContaining('Simulated malformed output') },
    ]);
    const limited = await (
      await post('/v1/messages', { ...body, max_tokens: 5, messages: [{ role: 'user', content: CODER }] })
    ).json();
    expect(limited.stop_reason).toBe('max_tokens');
    expect(limited.content.map((b: { type: string }) => b.type)).toEqual(['text']);
    // Room for the prose but not for the call: the call is left out whole.
    const normal = await (
      await post('/v1/messages', { ...body, messages: [{ role: 'user', content: CODER }] })
    ).json();
    const room = Math.ceil(normal.content[0].text.length / 4);
    const limited2 = await (
      await post('/v1/messages', { ...body, max_tokens: room, messages: [{ role: 'user', content: CODER }] })
    ).json();
    expect(limited2.content).toEqual([normal.content[0]]);
    expect(limited2.stop_reason).toBe('max_tokens');
    const failed = await post(
      '/v1/messages',
      { ...body, messages: [{ role: 'user', content: CODER }] },
      'error=429@coder',
    );
    expect(failed.status).toBe(429);
  });

  it('stream-error=529@coder: an error event after the turn has begun', async () => {
    const res = await post(
      '/v1/messages',
      { ...body, stream: true, messages: [{ role: 'user', content: CODER }] },
      'stream-error=529@coder',
    );
    const text = await res.text();
    expect(text).toMatch(/event: content_block_delta[\s\S]*event: error\n/);
    expect(text).not.toContain('message_stop');
  });
});
