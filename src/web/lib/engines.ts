import { useQuery } from '@tanstack/react-query';
import type { EngineEndpoint, EngineInfo, EnginesResponse } from '@/contracts/engines';
import { PROVIDER_LABELS, type ProviderId } from '@/contracts/pipeline';
import { CODER_ENGINE_LABELS, type CoderEngineId } from '@/contracts/projects';
import { apiRequest } from './api-client';

/**
 * The coder engines this server can run (GET /api/engines). Shared: the project settings and a
 * task's own choice of engine both show it.
 */
export function getEngines(): Promise<EnginesResponse> {
  return apiRequest<EnginesResponse>('/api/engines');
}

export const enginesQueryKey = ['engines'] as const;

export function useEngines() {
  // What is installed changes only when the operator installs something: a minute is fresh enough.
  return useQuery({ queryKey: enginesQueryKey, queryFn: getEngines, staleTime: 60_000 });
}

/** What each engine talks to, as the contract says: known before (or without) the server's answer. */
const KNOWN_ENDPOINTS: Record<CoderEngineId, EngineEndpoint> = {
  autocoder: 'any',
  'one-shot': 'any',
  'claude-code': 'anthropic',
  codex: 'openai-responses',
};

/** The providers a run of an engine of this endpoint may use. */
const FITTING_PROVIDERS: Record<EngineEndpoint, readonly ProviderId[]> = {
  any: ['anthropic', 'openai', 'simulator'],
  anthropic: ['anthropic', 'simulator'],
  'openai-responses': ['openai', 'simulator'],
};

const NEEDS: Record<Exclude<EngineEndpoint, 'any'>, string> = {
  anthropic: 'the Anthropic provider (or the simulator)',
  'openai-responses': 'an OpenAI-compatible endpoint with the Responses API (or the simulator)',
};

/** An engine's name without its explanation: "Claude Code", "One-shot". */
export const engineDisplayName = (engine: CoderEngineId): string =>
  (CODER_ENGINE_LABELS[engine] ?? String(engine)).replace(/\s*\(.*\)$/, '');

/** The server's word on an engine; undefined while it is not known (loading, an older server). */
export function engineInfo(engines: readonly EngineInfo[] | undefined, id: CoderEngineId) {
  return engines?.find((engine) => engine.id === id);
}

export const providerFits = (endpoint: EngineEndpoint, provider: ProviderId): boolean =>
  (FITTING_PROVIDERS[endpoint] ?? FITTING_PROVIDERS.any).includes(provider);

/** How an option of the engine reads: its label, and a mark when this server cannot run it. */
export function engineOptionSuffix(info: EngineInfo | undefined): string {
  if (!info || info.available) return '';
  return info.install ? ' (not installed)' : ' (not available)';
}

export interface EngineProblem {
  kind: 'unavailable' | 'provider';
  text: string;
  /** How an operator installs it (a command, shown as code). */
  install?: string;
}

/**
 * Why a run with this engine would be refused, said before the start: the server cannot run it
 * (its reason and how to install it), or the provider of this browser's run settings does not fit
 * the endpoint it needs. Null when nothing stands in the way (as far as is known).
 */
export function engineProblem(
  engine: CoderEngineId,
  info: EngineInfo | undefined,
  provider: ProviderId,
): EngineProblem | null {
  const name = engineDisplayName(engine);
  if (info && !info.available) {
    const reason = info.reason?.trim();
    return {
      kind: 'unavailable',
      text: `${name} cannot run on this server${reason ? `: ${reason}` : '.'}`,
      ...(info.install?.trim() ? { install: info.install.trim() } : {}),
    };
  }
  const endpoint = info?.endpoint ?? KNOWN_ENDPOINTS[engine] ?? 'any';
  if (endpoint === 'any' || providerFits(endpoint, provider)) return null;
  return {
    kind: 'provider',
    text: `${name} needs ${NEEDS[endpoint]}; your runs use ${PROVIDER_LABELS[provider] ?? provider}. Change the provider in Settings.`,
  };
}
