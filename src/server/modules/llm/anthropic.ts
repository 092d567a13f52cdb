import Anthropic from '@anthropic-ai/sdk';
import { yieldTurn } from '@/server/lib/yield-turn.js';
import { DEFAULT_IDLE_TIMEOUT_MS, guardCall } from './call-guard.js';
import { toLlmError } from './errors.js';
import { LlmError, type LlmProvider, type LlmRequest, type LlmResponse } from './provider.js';

const DEFAULT_BASE_URL = 'https://api.anthropic.com';

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

  async function stream(request: LlmRequest): Promise<LlmResponse> {
    if (!client) throw new LlmError('auth', `${label}: no API key is configured`);
    const guard = guardCall(request.signal, idleMs);
    let text = '';
    let model = request.model;
    let inputTokens = 0;
    let outputTokens = 0;
    let stopReason: string | null = null;
    let finished = false;
    // An exception from onText is the caller's own bug or decision: it passes through untouched.
    let callbackFailure: { error: unknown } | undefined;
    try {
      const events = await client.messages.create(
        {
          model: request.model,
          max_tokens: request.maxTokens,
          system: request.system,
          messages: [{ role: 'user', content: request.prompt }],
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
        if (event.type === 'message_start') {
          model = event.message.model || model;
          inputTokens = event.message.usage.input_tokens;
          outputTokens = event.message.usage.output_tokens;
        } else if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') {
          text += event.delta.text;
          try {
            request.onText(event.delta.text);
          } catch (error) {
            callbackFailure = { error };
            throw error;
          }
        } else if (event.type === 'message_delta') {
          stopReason = event.delta.stop_reason ?? stopReason;
          outputTokens = event.usage.output_tokens;
          if (typeof event.usage.input_tokens === 'number') inputTokens = event.usage.input_tokens;
        } else if (event.type === 'message_stop') {
          finished = true;
        }
      }
      // The SDK ends the iteration quietly when its signal fires; a stream without message_stop was cut short.
      if (!finished) throw new Error('the stream ended before message_stop');
      return { text, usage: { inputTokens, outputTokens }, model, stopReason };
    } catch (error) {
      if (callbackFailure) throw callbackFailure.error;
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

  return { id: simulated ? 'simulator' : 'anthropic', simulated, stream };
}
