import Anthropic from '@anthropic-ai/sdk';
import { yieldTurn } from '@/server/lib/yield-turn.js';
import { callbackRunner, DEFAULT_IDLE_TIMEOUT_MS, guardCall } from './call-guard.js';
import { toLlmError } from './errors.js';
import {
  LlmError,
  type LlmProvider,
  streamAsTurn,
  type ToolCallRequest,
  type TurnMessage,
  type TurnRequest,
  type TurnResponse,
} from './provider.js';

const DEFAULT_BASE_URL = 'https://api.anthropic.com';
const EPHEMERAL = { type: 'ephemeral' as const };

export interface AnthropicProviderOptions {
  apiKey: string;
  /** Defaults to the public API; the caller passes ANTHROPIC_BASE_URL (the SDK does not read it here). */
  baseURL?: string;
  /** Set when baseURL is AutoCoder's simulator: the provider then reports itself as "simulator". */
  simulated?: boolean;
  /** Longest wait for response headers and, once streaming, between two events. */
  timeoutMs?: number;
  /** Sent with every request (the simulator's run id and scenario). */
  defaultHeaders?: Record<string, string>;
}

type MessageParam = Anthropic.Messages.MessageParam;
type ContentBlock = Anthropic.Messages.ContentBlockParam;

/** The arguments a model sent, as the object the API wants back in the history. */
function inputObject(args: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(args || '{}');
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

function toMessages(messages: TurnMessage[]): MessageParam[] {
  return messages.map((message): MessageParam => {
    if (message.role === 'user') return { role: 'user', content: message.text };
    if (message.role === 'assistant') {
      const content: ContentBlock[] = [];
      if (message.text) content.push({ type: 'text', text: message.text });
      for (const call of message.toolCalls) {
        content.push({ type: 'tool_use', id: call.id, name: call.name, input: inputObject(call.arguments) });
      }
      // The API refuses an empty assistant turn; a model that said nothing said "(no answer)".
      if (content.length === 0) content.push({ type: 'text', text: '(no answer)' });
      return { role: 'assistant', content };
    }
    const content: ContentBlock[] = message.results.map((result) => ({
      type: 'tool_result' as const,
      tool_use_id: result.callId,
      content: result.content || '(empty)',
      ...(result.ok ? {} : { is_error: true }),
    }));
    if (message.text) content.push({ type: 'text', text: message.text });
    return { role: 'user', content };
  });
}

/**
 * Marks the conversation so far for the prompt cache: its last block. With the tools' and the
 * system prompt's marks that makes three of the four breakpoints the API allows; each turn reads
 * the previous turn's prefix and writes its own.
 */
function markLastBlock(messages: MessageParam[]): void {
  const last = messages.at(-1);
  if (!last) return;
  if (typeof last.content === 'string') last.content = [{ type: 'text', text: last.content }];
  const block = last.content.at(-1);
  if (block && block.type !== 'thinking' && block.type !== 'redacted_thinking') {
    (block as { cache_control?: typeof EPHEMERAL }).cache_control = EPHEMERAL;
  }
}

/** Claude through the official SDK, streamed. No SDK retries: the orchestrator decides when to try again. */
export function createAnthropicProvider(opts: AnthropicProviderOptions): LlmProvider {
  const simulated = opts.simulated === true;
  const label = simulated ? 'Simulator' : 'Anthropic';
  const idleMs = opts.timeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const client = opts.apiKey
    ? new Anthropic({
        apiKey: opts.apiKey,
        authToken: null,
        baseURL: opts.baseURL || DEFAULT_BASE_URL,
        maxRetries: 0,
        timeout: idleMs,
        defaultHeaders: opts.defaultHeaders,
      })
    : undefined;

  async function turn(request: TurnRequest): Promise<TurnResponse> {
    if (!client) throw new LlmError('auth', `${label}: no API key is configured`);
    const guard = guardCall(request.signal, idleMs);
    let text = '';
    let model = request.model;
    const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
    let stopReason: string | null = null;
    let finished = false;
    const calls = new Map<number, ToolCallRequest>();
    const callbacks = callbackRunner();
    const callback = callbacks.call;
    try {
      const cache = request.cache === true;
      const messages = toMessages(request.messages);
      if (cache) markLastBlock(messages);
      const tools = request.tools.map((tool, index) => ({
        name: tool.name,
        description: tool.description,
        input_schema: { ...tool.parameters, type: 'object' as const },
        ...(cache && index === request.tools.length - 1 ? { cache_control: EPHEMERAL } : {}),
      }));
      const events = await client.messages.create(
        {
          model: request.model,
          max_tokens: request.maxTokens,
          system: cache ? [{ type: 'text', text: request.system, cache_control: EPHEMERAL }] : request.system,
          messages,
          ...(tools.length > 0 ? { tools } : {}),
          ...(tools.length > 0 && request.toolChoice === 'none' ? { tool_choice: { type: 'none' } } : {}),
          stream: true,
        },
        {
          signal: guard.signal,
          headers: simulated && request.runId ? { 'x-autocoder-run-id': request.runId } : undefined,
        },
      );
      for await (const event of events) {
        guard.touch();
        const pause = yieldTurn();
        if (pause) await pause;
        switch (event.type) {
          case 'message_start': {
            model = event.message.model || model;
            const start = event.message.usage;
            usage.input = start.input_tokens;
            usage.output = start.output_tokens;
            usage.cacheRead = start.cache_read_input_tokens ?? 0;
            usage.cacheWrite = start.cache_creation_input_tokens ?? 0;
            break;
          }
          case 'content_block_start':
            if (event.content_block.type === 'tool_use') {
              const call = { id: event.content_block.id, name: event.content_block.name, arguments: '' };
              calls.set(event.index, call);
              callback(request.onToolCallStart, { id: call.id, name: call.name });
            }
            break;
          case 'content_block_delta':
            if (event.delta.type === 'text_delta') {
              text += event.delta.text;
              callback(request.onText, event.delta.text);
            } else if (event.delta.type === 'input_json_delta') {
              const call = calls.get(event.index);
              if (call) call.arguments += event.delta.partial_json;
              callback(request.onToolInput, event.delta.partial_json);
            }
            break;
          case 'message_delta':
            stopReason = event.delta.stop_reason ?? stopReason;
            usage.output = event.usage.output_tokens;
            if (typeof event.usage.input_tokens === 'number') usage.input = event.usage.input_tokens;
            if (typeof event.usage.cache_read_input_tokens === 'number')
              usage.cacheRead = event.usage.cache_read_input_tokens;
            if (typeof event.usage.cache_creation_input_tokens === 'number')
              usage.cacheWrite = event.usage.cache_creation_input_tokens;
            break;
          case 'message_stop':
            finished = true;
            break;
        }
      }
      // The SDK ends the iteration quietly when its signal fires; a stream without message_stop was cut short.
      if (!finished) throw new Error('the stream ended before message_stop');
      return {
        text,
        toolCalls: [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call),
        // Anthropic's input_tokens leaves out what the cache served or stored: AutoCoder counts all input.
        usage: {
          inputTokens: usage.input + usage.cacheRead + usage.cacheWrite,
          outputTokens: usage.output,
          ...(usage.cacheRead ? { cacheReadTokens: usage.cacheRead } : {}),
          ...(usage.cacheWrite ? { cacheWriteTokens: usage.cacheWrite } : {}),
        },
        model,
        stopReason,
      };
    } catch (error) {
      callbacks.rethrowIfCallback();
      throw toLlmError(error, {
        label,
        aborted: guard.userAborted,
        timedOutAfterMs: guard.timedOutAfterMs,
        secrets: [opts.apiKey],
      });
    } finally {
      guard.dispose();
    }
  }

  return { id: simulated ? 'simulator' : 'anthropic', simulated, stream: streamAsTurn(turn), turn };
}
