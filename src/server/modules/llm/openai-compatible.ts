import OpenAI from 'openai';
import { yieldTurn } from '@/server/lib/yield-turn.js';
import { DEFAULT_IDLE_TIMEOUT_MS, guardCall } from './call-guard.js';
import { toLlmError } from './errors.js';
import type { LlmProvider, LlmRequest, LlmResponse } from './provider.js';

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

  async function stream(request: LlmRequest): Promise<LlmResponse> {
    const guard = guardCall(request.signal, idleMs);
    let text = '';
    let model = request.model;
    let inputTokens = 0;
    let outputTokens = 0;
    let stopReason: string | null = null;
    let callbackFailure: { error: unknown } | undefined;
    try {
      const chunks = await client.chat.completions.create(
        {
          model: request.model,
          max_tokens: request.maxTokens,
          messages: [
            { role: 'system', content: request.system },
            { role: 'user', content: request.prompt },
          ],
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
        }
        const choice = chunk.choices[0];
        const delta = choice?.delta?.content;
        if (delta) {
          text += delta;
          try {
            request.onText(delta);
          } catch (error) {
            callbackFailure = { error };
            throw error;
          }
        }
        if (choice?.finish_reason) stopReason = choice.finish_reason;
      }
      // The SDK ends the iteration quietly when its signal fires; no finish_reason means the stream was cut short.
      if (stopReason === null) throw new Error('the stream ended before a finish_reason');
      return { text, usage: { inputTokens, outputTokens }, model, stopReason };
    } catch (error) {
      if (callbackFailure) throw callbackFailure.error;
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

  return { id: 'openai', simulated: false, stream };
}
