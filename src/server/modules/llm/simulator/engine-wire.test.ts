// The engines' side of the simulator without the CLIs: the Responses wire, engine detection, and the shell it writes.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCoderLoopPrompt } from '@/server/modules/pipeline/prompts/coder-loop-prompt.js';
import { parseProbe, probeCommand, writeCommand, writtenPath } from './engine-coder.js';
import { ENGINE_ROLE_LINE, engineMarked, engineStepText } from './engine-prompts.js';
import { parseScenario } from './scenario.js';
import { type SimulatorHandle, startSimulator } from './server.js';

const bash = promisify(execFile);

const step = buildCoderLoopPrompt({
  task: { title: 'Add greeting helper', category: 'feature', description: 'Greet a user by name.' },
  subtask: { id: 'st-1', title: 'Create it', description: 'Add it.', order: 1, files: ['src/a.ts'] },
  subtaskIndex: 1,
  subtaskCount: 1,
  previousOutputs: [],
});

/** The events of an SSE body, in order: `event:` name and `data:` JSON. */
function events(body: string): Array<{ event: string; data: Record<string, unknown> }> {
  return body
    .split('\n\n')
    .filter((frame) => frame.trim())
    .map((frame) => {
      const event = /^event: (.*)$/m.exec(frame)?.[1] ?? '';
      const data = JSON.parse(/^data: (.*)$/m.exec(frame)?.[1] ?? '{}') as Record<string, unknown>;
      return { event, data };
    });
}

describe('the engine marker', () => {
  it('is found on a line of its own anywhere, and the step text is cut from it', () => {
    expect(ENGINE_ROLE_LINE('codex')).toBe('# Role: coder (engine: codex)');
    expect(engineMarked(`You are Claude Code.\n\n${ENGINE_ROLE_LINE('claude-code')}\nRules.`)).toBe(
      'claude-code',
    );
    expect(engineMarked('# Role: coder\nno engine')).toBeUndefined();
    const message = `<system-reminder>\nTask title: not this\n</system-reminder>\n${ENGINE_ROLE_LINE('codex')}\nRules.\n\n${step}`;
    expect(engineStepText(message)).toBe(step);
  });
});

describe('engine-sleep', () => {
  it('is a scenario directive in seconds, at most 600', () => {
    expect(parseScenario('engine-sleep=30, error=429@coder')).toMatchObject({
      engineSleepSeconds: 30,
      invalid: [],
    });
    expect(parseScenario('engine-sleep=100000').engineSleepSeconds).toBe(600);
  });
});

describe('the shell an engine step runs', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'autocoder-engine-shell-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes any content exactly, and the probe reads it back exactly', async () => {
    const contents: Record<string, string> = {
      'a/b/plain.ts': 'export const a = `$HOME $(id) "q"`;\n\tindented \\ back\n',
      "quote's dir/x.txt": 'no final newline',
      'eof.txt': 'AUTOCODER_EOF\nAUTOCODER_EOF_1\nend\n\n',
      'empty.txt': '',
      'unicode.md': 'héllo — ✓\r\nwindows line\r\n',
    };
    for (const [path, content] of Object.entries(contents)) {
      const command = writeCommand(path, content);
      expect(writtenPath(command)).toBe(path);
      await bash('bash', ['-c', command], { cwd: dir });
      expect(await readFile(join(dir, path), 'utf8')).toBe(content);
    }
    await writeFile(join(dir, 'later.txt'), 'x\n');
    const paths = [...Object.keys(contents), 'missing/file.ts'];
    const { stdout } = await bash('bash', ['-c', probeCommand(paths)], { cwd: dir });
    const seen = parseProbe(`Chunk ID: 1\nProcess exited with code 0\nOutput:\n${stdout}`);
    expect(Object.fromEntries(seen)).toEqual({ ...contents, 'missing/file.ts': undefined });
    expect(writtenPath('cat src/a.ts')).toBeUndefined();
  });
});

describe('the simulator serving engines', () => {
  let sim: SimulatorHandle;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, chunkDelayMs: 0 });
  });
  afterAll(async () => {
    await sim.close();
  });

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${sim.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test', ...headers },
      body: JSON.stringify(body),
    });

  it('answers HEAD / (Claude Code checks it) and routes /v1/messages?beta=true', async () => {
    expect((await fetch(`${sim.url}/`, { method: 'HEAD' })).status).toBe(200);
    const res = await post('/v1/messages?beta=true', {
      model: 'claude',
      max_tokens: 128000,
      system: [{ type: 'text', text: `You are Claude Code.\n\n${ENGINE_ROLE_LINE('claude-code')}\nDo it.` }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: '<system-reminder>ctx</system-reminder>' },
            { type: 'text', text: step },
          ],
        },
        { role: 'system', content: [{ type: 'text', text: '# Environment' }] },
      ],
      tools: [
        { name: 'Bash', input_schema: { type: 'object' } },
        { name: 'Write', input_schema: { type: 'object' } },
      ],
      thinking: { type: 'adaptive' },
      context_management: { edits: [] },
      output_config: { effort: 'medium' },
      metadata: { user_id: 'x' },
    });
    expect(res.status).toBe(200);
    const message = (await res.json()) as {
      stop_reason: string;
      content: Array<Record<string, unknown>>;
      usage: Record<string, number>;
    };
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content.at(-1)).toMatchObject({ type: 'tool_use', name: 'Bash' });
    expect((message.content.at(-1)!.input as { command: string }).command).toContain(
      "'src/add-greeting-helper.ts'",
    );
    expect(message.usage.input_tokens).toBeGreaterThan(0);
  });

  it('gives an engine’s other requests a short text, on either wire', async () => {
    const side = await post('/v1/messages', {
      model: 'claude',
      max_tokens: 512,
      system: [{ type: 'text', text: 'Write a title for this conversation.' }],
      messages: [{ role: 'user', content: 'hello' }],
    });
    expect(side.status).toBe(200);
    expect(((await side.json()) as { content: Array<{ text: string }> }).content[0]!.text).toContain(
      'simulator',
    );

    const res = await post('/v1/responses', { model: 'gpt', input: 'hi', stream: true });
    expect(res.status).toBe(200);
    const all = events(await res.text());
    expect(all.at(-1)).toMatchObject({
      event: 'response.completed',
      data: { response: { status: 'completed' } },
    });
  });

  it('streams an engine step’s first call to Codex, and plays error=<status>@coder per run', async () => {
    const body = {
      model: 'gpt-5-codex',
      stream: true,
      input: [
        {
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text: `${ENGINE_ROLE_LINE('codex')}\n\n${step}` }],
        },
      ],
      tools: [{ type: 'function', name: 'exec_command', parameters: { type: 'object' } }],
    };
    const seen: unknown[] = [];
    sim.events.on('request', (event) => seen.push(event));
    const res = await post('/v1/responses', body);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(seen).toEqual([
      { path: '/v1/responses', agent: 'coder', runKey: 'global', fault: undefined, engine: 'codex' },
    ]);
    const all = events(await res.text());
    const done = all.find(
      (e) =>
        e.event === 'response.output_item.done' && (e.data.item as { type: string }).type === 'function_call',
    );
    expect(done?.data.item).toMatchObject({ name: 'exec_command', status: 'completed' });
    expect(all.at(-1)?.event).toBe('response.completed');

    const headers = { 'x-autocoder-run-id': 'run-x', 'x-simulator-scenario': 'error=429@coder' };
    const limited = await post('/v1/responses', body, headers);
    expect(limited.status).toBe(429);
    expect(((await limited.json()) as { error: { message: string } }).error.message).toContain(
      'Simulated 429',
    );
    expect((await post('/v1/responses', body, headers)).status).toBe(200);
  });
});
