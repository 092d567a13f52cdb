import type { ProviderId } from '@/contracts/pipeline.js';
import { createAnthropicProvider } from './anthropic.js';
import { createOpenAiProvider } from './openai-compatible.js';
import { LlmError, type LlmProvider } from './provider.js';

/** Sent to the simulator in place of a key: it wants one, and it is never a secret. */
export const SIMULATOR_KEY = 'autocoder-simulator';

/**
 * Everything a run's provider needs; the caller (the orchestrator) passes the environment's values in, this
 * module reads no environment. The field names match the pipeline's resolved provider.
 */
export interface CreateProviderOptions {
  provider: ProviderId;
  /** Anthropic: the request's `x-anthropic-key` (or an already resolved key). */
  anthropicKey?: string;
  /** Anthropic: the operator's ANTHROPIC_API_KEY, used when the request brought none. */
  operatorAnthropicKey?: string;
  /** Anthropic: ANTHROPIC_BASE_URL. */
  anthropicBaseUrl?: string;
  /** OpenAI-compatible endpoint root (…/v1). */
  openaiBaseUrl?: string;
  /** Key for that endpoint; optional for local servers. */
  openaiKey?: string;
  /** The fetch for that endpoint (a guarded one when a user chose it). */
  openaiFetch?: typeof fetch;
  /** Where the simulator listens (its handle's `url`). */
  simulatorUrl?: string;
  /** The run: the simulator keeps per-run scenario counters by it. */
  runId?: string;
  /** Simulator directives, e.g. "review-fails=2,error=429@coder". */
  scenario?: string;
  /** Longest wait for headers and between two streamed events. */
  timeoutMs?: number;
}

/** Picks and builds the provider of a run. Throws LlmError (auth / bad_request) when its settings are missing. */
export function createProvider(opts: CreateProviderOptions): LlmProvider {
  const timeout = opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {};
  switch (opts.provider) {
    case 'anthropic': {
      const apiKey = opts.anthropicKey || opts.operatorAnthropicKey;
      if (!apiKey)
        throw new LlmError('auth', 'Anthropic: no API key (send x-anthropic-key or set ANTHROPIC_API_KEY)');
      return createAnthropicProvider({
        apiKey,
        ...(opts.anthropicBaseUrl ? { baseURL: opts.anthropicBaseUrl } : {}),
        ...timeout,
      });
    }
    case 'openai': {
      if (!opts.openaiBaseUrl) throw new LlmError('bad_request', 'OpenAI-compatible endpoint: no base URL');
      return createOpenAiProvider({
        baseURL: opts.openaiBaseUrl,
        ...(opts.openaiKey ? { apiKey: opts.openaiKey } : {}),
        ...(opts.openaiFetch ? { fetch: opts.openaiFetch } : {}),
        ...timeout,
      });
    }
    case 'simulator': {
      if (!opts.simulatorUrl) throw new LlmError('bad_request', 'Simulator: no URL (is it running?)');
      const defaultHeaders: Record<string, string> = {};
      if (opts.runId) defaultHeaders['x-autocoder-run-id'] = opts.runId;
      // A header carries printable ASCII only; "×2" is spelled "x2".
      const scenario = opts.scenario?.replace(/×/g, 'x').replace(/[^\x20-\x7e]/g, '');
      if (scenario) defaultHeaders['x-simulator-scenario'] = scenario;
      return createAnthropicProvider({
        apiKey: SIMULATOR_KEY,
        baseURL: opts.simulatorUrl,
        simulated: true,
        defaultHeaders,
        ...timeout,
      });
    }
  }
}
