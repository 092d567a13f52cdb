import {
  AGENT_CONFIGS,
  type AgentConfig,
  type AgentType,
  ANTHROPIC_KEY_PATTERN,
  type ProviderId,
  type RunOptions,
} from '@/contracts/pipeline.js';
import { AppError } from '@/server/lib/errors.js';
import { resolveAllowed } from '@/server/lib/guarded-fetch.js';
import type { NetworkPolicy } from '@/server/lib/network-policy.js';

/** Keys as they arrived with the request. They live in memory for the run's duration only. */
export interface RequestSecrets {
  anthropicKey?: string | undefined;
  openaiKey?: string | undefined;
  /** A Claude Code OAuth token (`x-claude-code-oauth-token`), for the claude-code engine only. */
  claudeCodeToken?: string | undefined;
}

/** The operator's defaults from the environment. */
export interface ProviderDefaults {
  anthropicApiKey?: string | undefined;
  anthropicBaseUrl?: string | undefined;
  /** CLAUDE_CODE_OAUTH_TOKEN: Claude Code's OAuth token, for runs that bring no key or token of their own. */
  claudeCodeToken?: string | undefined;
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
  /** Claude Code's OAuth token, when the person gave one (provider anthropic). */
  claudeCodeToken?: string;
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
  // The person's own token wins; the operator's goes with the operator's key only.
  const token = secrets.claudeCodeToken ?? (header === undefined ? defaults.claudeCodeToken : undefined);
  return {
    provider,
    anthropicKey: key,
    ...(defaults.anthropicBaseUrl ? { anthropicBaseUrl: defaults.anthropicBaseUrl } : {}),
    ...(token ? { claudeCodeToken: token } : {}),
  };
}

/**
 * `resolveProvider`, and a base URL the user chose must lead to an address the network policy
 * allows (400 ADDRESS_NOT_ALLOWED). A name that does not resolve is left for the run to report.
 */
export async function resolveAllowedProvider(
  provider: ProviderId,
  options: Pick<RunOptions, 'openaiBaseUrl' | 'scenario'>,
  secrets: RequestSecrets,
  defaults: ProviderDefaults,
  network: NetworkPolicy | undefined,
): Promise<ResolvedProvider> {
  const resolved = resolveProvider(provider, options, secrets, defaults);
  if (resolved.openaiUserUrl && resolved.openaiBaseUrl && network) {
    await resolveAllowed(network, new URL(resolved.openaiBaseUrl).hostname).catch((error: unknown) => {
      if (error instanceof AppError) throw error;
    });
  }
  return resolved;
}

/** The models a run uses: the ones chosen in `options`, the defaults for the others. */
export function agentConfigsOf(options: { agents?: Partial<Record<AgentType, AgentConfig>> | undefined }) {
  const chosen = options.agents ?? {};
  return {
    planner: chosen.planner ?? AGENT_CONFIGS.planner,
    coder: chosen.coder ?? AGENT_CONFIGS.coder,
    reviewer: chosen.reviewer ?? AGENT_CONFIGS.reviewer,
  } satisfies Record<AgentType, AgentConfig>;
}
