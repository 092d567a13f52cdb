import { z } from 'zod';
import { create } from 'zustand';
import { CLAUDE_CODE_TOKEN_HEADER } from '@/contracts/engines';
import {
  AGENT_CONFIGS,
  AGENT_TYPES,
  type AgentConfig,
  type AgentType,
  PROVIDERS,
  type ProviderId,
  type RunOptions,
} from '@/contracts/pipeline';

/**
 * How pipelines run: the provider, its keys and the models. Shared by the settings page (which edits
 * it) and the pipeline (which sends it with every start, retry and request for changes).
 *
 * Keys live in this browser's localStorage only. Encrypting them here would be theatre: the
 * decryption key would sit next to them. They leave the browser only as request headers.
 */
export interface RunSettings {
  /** null until the person chooses: then the simulator, or Anthropic once a key is stored. */
  provider: ProviderId | null;
  anthropicKey: string;
  openaiBaseUrl: string;
  openaiKey: string;
  /**
   * A Claude Code OAuth token (made with `claude setup-token`): the Claude Code engine uses it
   * instead of the Anthropic API key. Sent only with Anthropic runs.
   */
  claudeCodeToken: string;
  agents: Record<AgentType, AgentConfig>;
  /** Simulator directives, e.g. "review-fails=1,error=429@coder" (demos and tests). */
  scenario: string;
}

const STORAGE_KEY = 'autocoder.run-settings.v1';

export const DEFAULT_RUN_SETTINGS: RunSettings = {
  provider: null,
  anthropicKey: '',
  openaiBaseUrl: '',
  openaiKey: '',
  claudeCodeToken: '',
  agents: AGENT_CONFIGS,
  scenario: '',
};

const agentSchema = z.object({ model: z.string(), maxTokens: z.number().int() });
const storedSchema = z.object({
  provider: z.enum(PROVIDERS).nullable().catch(null),
  anthropicKey: z.string().catch(''),
  openaiBaseUrl: z.string().catch(''),
  openaiKey: z.string().catch(''),
  claudeCodeToken: z.string().catch(''),
  agents: z
    .object({
      planner: agentSchema.catch(AGENT_CONFIGS.planner),
      coder: agentSchema.catch(AGENT_CONFIGS.coder),
      reviewer: agentSchema.catch(AGENT_CONFIGS.reviewer),
    })
    .catch(AGENT_CONFIGS),
  scenario: z.string().catch(''),
});

function storage(): Storage | null {
  try {
    return typeof window === 'undefined' ? null : window.localStorage;
  } catch {
    return null; // Storage disabled (privacy mode): settings last for this page only.
  }
}

/** What this browser has saved; defaults when nothing is, or what is there cannot be read. */
export function loadRunSettings(): RunSettings {
  const raw = storage()?.getItem(STORAGE_KEY);
  if (!raw) return DEFAULT_RUN_SETTINGS;
  try {
    const parsed = storedSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : DEFAULT_RUN_SETTINGS;
  } catch {
    return DEFAULT_RUN_SETTINGS;
  }
}

/** The provider a run uses: the chosen one, else Anthropic when a key is stored, else the simulator. */
export function effectiveProvider(settings: RunSettings): ProviderId {
  return settings.provider ?? (settings.anthropicKey ? 'anthropic' : 'simulator');
}

interface RunSettingsStore {
  settings: RunSettings;
  save: (settings: RunSettings) => void;
}

export const useRunSettingsStore = create<RunSettingsStore>((set) => ({
  settings: loadRunSettings(),
  save: (settings) => {
    storage()?.setItem(STORAGE_KEY, JSON.stringify(settings));
    set({ settings });
  },
}));

// Another tab saved: follow it.
if (typeof window !== 'undefined') {
  window.addEventListener('storage', (event) => {
    if (event.key === STORAGE_KEY) useRunSettingsStore.setState({ settings: loadRunSettings() });
  });
}

export const useRunSettings = () => useRunSettingsStore((state) => state.settings);

export interface RunRequest {
  options: RunOptions;
  headers: Record<string, string>;
}

/** The body and headers of start / retry / request-changes for these settings. */
export function runRequestOf(settings: RunSettings): RunRequest {
  const provider = effectiveProvider(settings);
  if (provider === 'simulator') {
    const scenario = settings.scenario.trim();
    return { options: { provider, ...(scenario ? { scenario } : {}) }, headers: {} };
  }
  const agents = Object.fromEntries(
    AGENT_TYPES.map((agent) => [agent, settings.agents[agent]]),
  ) as RunOptions['agents'];
  if (provider === 'openai') {
    const baseUrl = settings.openaiBaseUrl.trim();
    const key = settings.openaiKey.trim();
    return {
      options: { provider, agents, ...(baseUrl ? { openaiBaseUrl: baseUrl } : {}) },
      headers: key ? { 'x-openai-key': key } : {},
    };
  }
  const key = settings.anthropicKey.trim();
  const token = settings.claudeCodeToken.trim();
  return {
    options: { provider, agents },
    headers: {
      ...(key ? { 'x-anthropic-key': key } : {}),
      ...(token ? { [CLAUDE_CODE_TOKEN_HEADER]: token } : {}),
    },
  };
}
