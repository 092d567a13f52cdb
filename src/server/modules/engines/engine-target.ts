import type { ProviderId } from '@/contracts/pipeline.js';
import { SIMULATOR_KEY } from '../llm/providers.js';
import type { ExternalEngineId } from './engine-catalog.js';
import type { RelayTarget } from './model-relay.js';

/** What a run resolved for its provider (keys in memory only), as the engines need it. */
export interface EngineCredentials {
  provider: ProviderId;
  anthropicKey?: string | undefined;
  anthropicBaseUrl?: string | undefined;
  /** A Claude Code OAuth token (`claude setup-token`), used by Claude Code before the API key. */
  claudeCodeToken?: string | undefined;
  openaiBaseUrl?: string | undefined;
  openaiKey?: string | undefined;
  openaiUserUrl?: boolean | undefined;
  scenario?: string | undefined;
  runId: string;
}

/** How an engine reaches its model: the relay's target, and what the engine itself is told. */
export interface EngineTarget {
  relay: RelayTarget;
  /** The placeholder credential's kind: Claude Code sends an OAuth bearer instead of a key. */
  oauth: boolean;
  simulated: boolean;
  /** Every secret of the run, removed from whatever the engine prints. */
  secrets: string[];
}

/** Stands for the credential inside the sandbox; the relay puts the real one in its place. */
export const PLACEHOLDER_ANTHROPIC_KEY = 'sk-ant-api03-autocoder-relay-placeholder';
export const PLACEHOLDER_OAUTH_TOKEN = 'sk-ant-oat01-autocoder-relay-placeholder';
export const PLACEHOLDER_OPENAI_KEY = 'sk-autocoder-relay-placeholder';

const ANTHROPIC_API = 'https://api.anthropic.com';

/**
 * Why an engine cannot work with a provider, or null: Claude Code speaks the Anthropic Messages
 * API (Anthropic or the simulator), Codex the OpenAI Responses API (an OpenAI-compatible endpoint
 * that has it, or the simulator).
 */
export function providerMismatch(engine: ExternalEngineId, provider: ProviderId): string | null {
  if (engine === 'claude-code' && provider === 'openai') {
    return 'Claude Code talks to Anthropic’s Messages API: choose Anthropic (or the simulator) as the provider in Settings.';
  }
  if (engine === 'codex' && provider === 'anthropic') {
    return 'Codex talks to an OpenAI-compatible Responses API: choose OpenAI-compatible (or the simulator) as the provider in Settings.';
  }
  return null;
}

/**
 * The relay target of an engine for the run's provider. The simulator gets the run's id and
 * scenario, as the built-in agents send them.
 */
export function engineTargetOf(
  engine: ExternalEngineId,
  run: EngineCredentials,
  options: { simulatorUrl: string; guardedFetch?: typeof fetch | undefined },
): EngineTarget {
  const mismatch = providerMismatch(engine, run.provider);
  if (mismatch) throw new Error(mismatch);
  const enginePrefix = engine === 'codex' ? '/v1' : '';
  if (run.provider === 'simulator') {
    const headers: Record<string, string> = {
      'x-autocoder-run-id': run.runId,
      ...(engine === 'codex' ? { authorization: `Bearer ${SIMULATOR_KEY}` } : { 'x-api-key': SIMULATOR_KEY }),
    };
    const scenario = run.scenario?.replace(/×/g, 'x').replace(/[^\x20-\x7e]/g, '');
    if (scenario) headers['x-simulator-scenario'] = scenario;
    const baseUrl = engine === 'codex' ? `${options.simulatorUrl}/v1` : options.simulatorUrl;
    return { relay: { baseUrl, enginePrefix, headers }, oauth: false, simulated: true, secrets: [] };
  }
  if (engine === 'claude-code') {
    const token = run.claudeCodeToken;
    const key = run.anthropicKey;
    const headers: Record<string, string> = token
      ? { authorization: `Bearer ${token}` }
      : key
        ? { 'x-api-key': key }
        : {};
    return {
      relay: { baseUrl: run.anthropicBaseUrl ?? ANTHROPIC_API, enginePrefix, headers },
      oauth: Boolean(token),
      simulated: false,
      secrets: [token, key].filter((s): s is string => Boolean(s)),
    };
  }
  const key = run.openaiKey;
  return {
    relay: {
      baseUrl: run.openaiBaseUrl ?? '',
      enginePrefix,
      headers: key ? { authorization: `Bearer ${key}` } : {},
      fetch: run.openaiUserUrl ? options.guardedFetch : undefined,
    },
    oauth: false,
    simulated: false,
    secrets: key ? [key] : [],
  };
}
