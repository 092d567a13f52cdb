import OpenAI from 'openai';
import { yieldTurn } from '@/server/lib/yield-turn.js';
import { callbackRunner, DEFAULT_IDLE_TIMEOUT_MS, guardCall } from './call-guard.js';
import { toLlmError } from './errors.js';
import {
  type LlmProvider,
  streamAsTurn,
  type ToolCallRequest,
  type TurnMessage,
  type TurnRequest,
  type TurnResponse,
} from './provider.js';

/** Local servers (Ollama, vLLM, LM Studio) ignore the key, but the SDK and some proxies want one. */
const PLACEHOLDER_KEY = 'not-needed';

export interface OpenAiProviderOptions {
  /** Optional: local servers need none. */
  apiKey?: string;
  /** The endpoint's OpenAI-compatible root, e.g. http://127.0.0.1:11434/v1 for Ollama. */
  baseURL: string;
  /** Longest wait for response headers and, once streaming, between two chunks. */
  timeoutMs?: number;
  /** The fetch to call the endpoint with: a guarded one for a URL a user chose. */
  fetch?: typeof fetch;
}

type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** A failed call's result as the model reads it: chat completions have no error flag of their own. */
export const TOOL_ERROR_PREFIX = 'Error: ';

function toMessages(system: string, messages: TurnMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [{ role: 'system', content: system }];
  for (const message of messages) {
    switch (message.role) {
      case 'user':
        out.push({ role: 'user', content: message.text });
        break;
      case 'assistant':
        out.push({
          role: 'assistant',
          content: message.text || null,
          ...(message.toolCalls.length > 0
            ? {
                tool_calls: message.toolCalls.map((call) => ({
                  id: call.id,
                  type: 'function' as const,
                  function: { name: call.name, arguments: call.arguments || '{}' },
                })),
              }
            : {}),
        });
        break;
      case 'tool':
        for (const result of message.results) {
          out.push({
            role: 'tool',
            tool_call_id: result.callId,
            content: result.ok ? result.content || '(empty)' : `${TOOL_ERROR_PREFIX}${result.content}`,
          });
        }
        if (message.text) out.push({ role: 'user', content: message.text });
        break;
    }
  }
  return out;
}

/** Any chat.completions endpoint, streamed with usage reporting. No SDK retries. */
export function createOpenAiProvider(opts: OpenAiProviderOptions): LlmProvider {
  const label = 'OpenAI-compatible endpoint';
  const idleMs = opts.timeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  // Every option the SDK would otherwise take from process.env is given explicitly.
  const client = new OpenAI({
    apiKey: opts.apiKey || PLACEHOLDER_KEY,
    adminAPIKey: null,
    organization: null,
    project: null,
    webhookSecret: null,
    baseURL: opts.baseURL,
    maxRetries: 0,
    timeout: idleMs,
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });

  async function turn(request: TurnRequest): Promise<TurnResponse> {
    const guard = guardCall(request.signal, idleMs);
    let text = '';
    let model = request.model;
    let inputTokens = 0;
    let outputTokens = 0;
    let cachedTokens = 0;
    let stopReason: string | null = null;
    const calls = new Map<number, ToolCallRequest>();
    const callbacks = callbackRunner();
    const callback = callbacks.call;
    try {
      const tools = request.tools.map((tool) => ({
        type: 'function' as const,
        function: { name: tool.name, description: tool.description, parameters: tool.parameters },
      }));
      const chunks = await client.chat.completions.create(
        {
          model: request.model,
          max_tokens: request.maxTokens,
          messages: toMessages(request.system, request.messages),
          ...(tools.length > 0 ? { tools } : {}),
          ...(tools.length > 0 && request.toolChoice === 'none' ? { tool_choice: 'none' as const } : {}),
          stream: true,
          stream_options: { include_usage: true },
        },
        { signal: guard.signal },
      );
      for await (const chunk of chunks) {
        guard.touch();
        const pause = yieldTurn();
        if (pause) await pause;
        if (chunk.model) model = chunk.model;
        if (chunk.usage) {
          inputTokens = chunk.usage.prompt_tokens;
          outputTokens = chunk.usage.completion_tokens;
          cachedTokens = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
        }
        const choice = chunk.choices[0];
        const delta = choice?.delta?.content;
        if (delta) {
          text += delta;
          callback(request.onText, delta);
        }
        for (const part of choice?.delta?.tool_calls ?? []) {
          let call = calls.get(part.index);
          if (!call) {
            call = { id: part.id ?? `call_${part.index}`, name: part.function?.name ?? '', arguments: '' };
            calls.set(part.index, call);
            callback(request.onToolCallStart, { id: call.id, name: call.name });
          } else if (part.function?.name && !call.name) {
            call.name = part.function.name;
          }
          const piece = part.function?.arguments ?? '';
          call.arguments += piece;
          if (piece) callback(request.onToolInput, piece);
        }
        if (choice?.finish_reason) stopReason = choice.finish_reason;
      }
      // The SDK ends the iteration quietly when its signal fires; no finish_reason means the stream was cut short.
      if (stopReason === null) throw new Error('the stream ended before a finish_reason');
      return {
        text,
        toolCalls: [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call),
        usage: { inputTokens, outputTokens, ...(cachedTokens ? { cacheReadTokens: cachedTokens } : {}) },
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
        // The endpoint may be one a user typed: what it answers is never repeated.
        quoteBody: false,
      });
    } finally {
      guard.dispose();
    }
  }

  return { id: 'openai', simulated: false, stream: streamAsTurn(turn), turn };
}
