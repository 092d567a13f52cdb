import { ANTHROPIC_KEY_PATTERN, type ProviderId, type RunOptions } from '@/contracts/pipeline.js';
import { AppError } from '@/server/lib/errors.js';

/** Keys as they arrived with the request. They live in memory for the run's duration only. */
export interface RequestSecrets {
  anthropicKey?: string | undefined;
  openaiKey?: string | undefined;
}

/** The operator's defaults from the environment. */
export interface ProviderDefaults {
  anthropicApiKey?: string | undefined;
  anthropicBaseUrl?: string | undefined;
  openaiBaseUrl?: string | undefined;
  openaiApiKey?: string | undefined;
}

export interface ResolvedProvider {
  provider: ProviderId;
  anthropicKey?: string;
  anthropicBaseUrl?: string;
  openaiBaseUrl?: string;
  openaiKey?: string;
  /** The OpenAI-compatible base URL came from the user, not the operator: only allowed addresses. */
  openaiUserUrl?: boolean;
  scenario?: string;
}

/**
 * Picks the provider and its key for a run: the request's `x-anthropic-key` (format-checked,
 * held for the run only, never stored) or the operator's ANTHROPIC_API_KEY; the simulator
 * needs none. Throws 400 INVALID_API_KEY with a message that never repeats the key.
 */
export function resolveProvider(
  provider: ProviderId,
  options: Pick<RunOptions, 'openaiBaseUrl' | 'scenario'>,
  secrets: RequestSecrets,
  defaults: ProviderDefaults,
): ResolvedProvider {
  if (provider === 'simulator')
    return { provider, ...(options.scenario ? { scenario: options.scenario } : {}) };
  if (provider === 'openai') {
    const baseUrl = options.openaiBaseUrl ?? defaults.openaiBaseUrl;
    if (!baseUrl) {
      throw new AppError(
        'INVALID_API_KEY',
        'An OpenAI-compatible base URL is required (settings or OPENAI_BASE_URL)',
      );
    }
    // The operator's key goes only to the operator's endpoint, never to a URL a user typed.
    const key = secrets.openaiKey ?? (baseUrl === defaults.openaiBaseUrl ? defaults.openaiApiKey : undefined);
    const fromUser = baseUrl !== defaults.openaiBaseUrl;
    return {
      provider,
      openaiBaseUrl: baseUrl,
      ...(key ? { openaiKey: key } : {}),
      ...(fromUser ? { openaiUserUrl: true } : {}),
    };
  }
  const header = secrets.anthropicKey;
  if (header !== undefined && !ANTHROPIC_KEY_PATTERN.test(header)) {
    throw new AppError('INVALID_API_KEY', 'Valid Anthropic API key required');
  }
  const key = header ?? defaults.anthropicApiKey;
  if (!key) throw new AppError('INVALID_API_KEY', 'Valid Anthropic API key required');
  return {
    provider,
    anthropicKey: key,
    ...(defaults.anthropicBaseUrl ? { anthropicBaseUrl: defaults.anthropicBaseUrl } : {}),
  };
}
