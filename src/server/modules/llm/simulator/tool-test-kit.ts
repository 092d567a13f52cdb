// For the simulator's tool tests: a driver per SDK that plays the agent loop against a running simulator
// through the real client, running each call on an Executor (tool-test-executor.ts).
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import {
  anthropicTools,
  openAiTools,
  type ToolName,
  toolDeclarations,
} from '@/server/modules/agent-tools/tool-declarations.js';
import type { Executor } from './tool-test-executor.js';

export { type Executor, type TempRepo, tempRepo, tinyExecutor } from './tool-test-executor.js';

export interface DrivenCall {
  name: string;
  input: unknown;
  ok: boolean;
  content: string;
}

export interface Transcript {
  turns: Array<{ text: string; calls: DrivenCall[]; stop: string | null }>;
  /** finish's summary, when it was called and answered. */
  finished?: string;
  /** Usage of each turn as the SDK reported it. */
  usage: unknown[];
}

export interface DriveOptions {
  url: string;
  system: string;
  prompt: string;
  tools: readonly ToolName[];
  exec: Executor;
  runId: string;
  scenario?: string;
  maxTurns?: number;
}

const headersOf = (o: DriveOptions) => ({
  'x-autocoder-run-id': o.runId,
  ...(o.scenario ? { 'x-simulator-scenario': o.scenario } : {}),
});

async function run(
  o: DriveOptions,
  transcript: Transcript,
  calls: Array<{ name: string; input: unknown }>,
): Promise<DrivenCall[]> {
  const out: DrivenCall[] = [];
  for (const call of calls) {
    const result = await o.exec.execute(call.name, call.input);
    out.push({ ...call, ...result });
    if (call.name === 'finish' && result.ok) {
      const input = (typeof call.input === 'string' ? JSON.parse(call.input) : call.input) as {
        summary: string;
      };
      transcript.finished = input.summary;
    }
  }
  return out;
}

/** The loop over the Anthropic SDK (messages.stream, finalMessage), with cache marks as AutoCoder sets them. */
export async function driveAnthropic(o: DriveOptions): Promise<Transcript> {
  const client = new Anthropic({ apiKey: 'k', authToken: null, baseURL: o.url, maxRetries: 0 });
  const tools = anthropicTools(toolDeclarations([...o.tools])).map((tool, i, all) =>
    i === all.length - 1 ? { ...tool, cache_control: { type: 'ephemeral' as const } } : tool,
  );
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: [{ type: 'text', text: o.prompt }] }];
  const transcript: Transcript = { turns: [], usage: [] };
  while (transcript.turns.length < (o.maxTurns ?? 30) && transcript.finished === undefined) {
    const last = messages.at(-1)!.content as Array<{ cache_control?: unknown }>;
    const marked = messages.map((m, i) =>
      i === messages.length - 1
        ? {
            ...m,
            content: last.map((b, j) =>
              j === last.length - 1 ? { ...b, cache_control: { type: 'ephemeral' } } : b,
            ),
          }
        : m,
    ) as Anthropic.MessageParam[];
    const message = await client.messages
      .stream(
        {
          model: 'claude-sim',
          max_tokens: 32_000,
          system: [{ type: 'text', text: o.system, cache_control: { type: 'ephemeral' } }],
          tools,
          messages: marked,
        },
        { headers: headersOf(o) },
      )
      .finalMessage();
    transcript.usage.push(message.usage);
    messages.push({ role: 'assistant', content: message.content });
    const uses = message.content.filter((b) => b.type === 'tool_use');
    const text = message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    const calls = await run(o, transcript, uses);
    transcript.turns.push({ text, calls, stop: message.stop_reason });
    if (uses.length === 0) break;
    messages.push({
      role: 'user',
      content: uses.map((use, i) => ({
        type: 'tool_result' as const,
        tool_use_id: use.id,
        content: calls[i]!.content,
        ...(calls[i]!.ok ? {} : { is_error: true }),
      })),
    });
  }
  return transcript;
}

/** The loop over the OpenAI SDK (chat.completions.create, streamed), as AutoCoder's provider speaks it. */
export async function driveOpenAi(o: DriveOptions): Promise<Transcript> {
  const client = new OpenAI({
    apiKey: 'k',
    baseURL: `${o.url}/v1`,
    maxRetries: 0,
    defaultHeaders: headersOf(o),
  });
  const tools = openAiTools(toolDeclarations([...o.tools]));
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
    { role: 'system', content: o.system },
    { role: 'user', content: o.prompt },
  ];
  const transcript: Transcript = { turns: [], usage: [] };
  while (transcript.turns.length < (o.maxTurns ?? 30) && transcript.finished === undefined) {
    const stream = await client.chat.completions.create({
      model: 'local',
      messages,
      tools,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let stop: string | null = null;
    const acc = new Map<number, { id: string; name: string; arguments: string }>();
    for await (const chunk of stream) {
      if (chunk.usage) transcript.usage.push(chunk.usage);
      const choice = chunk.choices[0];
      text += choice?.delta?.content ?? '';
      for (const part of choice?.delta?.tool_calls ?? []) {
        const call = acc.get(part.index) ?? {
          id: part.id ?? '',
          name: part.function?.name ?? '',
          arguments: '',
        };
        call.arguments += part.function?.arguments ?? '';
        acc.set(part.index, call);
      }
      stop = choice?.finish_reason ?? stop;
    }
    const made = [...acc.values()];
    messages.push({
      role: 'assistant',
      content: text || null,
      ...(made.length
        ? {
            tool_calls: made.map((c) => ({
              id: c.id,
              type: 'function' as const,
              function: { name: c.name, arguments: c.arguments },
            })),
          }
        : {}),
    });
    const calls = await run(
      o,
      transcript,
      made.map((c) => ({ name: c.name, input: c.arguments })),
    );
    transcript.turns.push({ text, calls, stop });
    if (made.length === 0) break;
    for (const [i, c] of made.entries()) {
      const r = calls[i]!;
      messages.push({ role: 'tool', tool_call_id: c.id, content: r.ok ? r.content : `Error: ${r.content}` });
    }
  }
  return transcript;
}

/** The names of the calls, turn by turn. */
export const callNames = (t: Transcript) => t.turns.map((turn) => turn.calls.map((c) => c.name));
