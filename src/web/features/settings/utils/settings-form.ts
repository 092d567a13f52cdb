import {
  AGENT_CONFIGS,
  AGENT_TYPES,
  type AgentType,
  ANTHROPIC_KEY_PATTERN,
  type ProviderId,
} from '@/contracts/pipeline';
import type { RunSettings } from '@/web/lib/run-settings';

/** The form's copy of the settings: numbers as typed, provider null until the person picks one. */
export interface SettingsForm {
  provider: ProviderId | null;
  anthropicKey: string;
  openaiBaseUrl: string;
  openaiKey: string;
  claudeCodeToken: string;
  agents: Record<AgentType, { model: string; maxTokens: string }>;
  scenario: string;
}

export type SettingsErrors = Partial<
  Record<'anthropicKey' | 'openaiBaseUrl' | 'claudeCodeToken' | 'scenario', string>
> & {
  agents?: Partial<Record<AgentType, { model?: string; maxTokens?: string }>>;
};

export const MIN_TOKENS = 256;
export const MAX_TOKENS = 64_000;

export function toForm(settings: RunSettings): SettingsForm {
  const agents = Object.fromEntries(
    AGENT_TYPES.map((agent) => [
      agent,
      { model: settings.agents[agent].model, maxTokens: String(settings.agents[agent].maxTokens) },
    ]),
  ) as SettingsForm['agents'];
  return { ...settings, agents };
}

export function defaultAgents(): SettingsForm['agents'] {
  return Object.fromEntries(
    AGENT_TYPES.map((agent) => [
      agent,
      { model: AGENT_CONFIGS[agent].model, maxTokens: String(AGENT_CONFIGS[agent].maxTokens) },
    ]),
  ) as SettingsForm['agents'];
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** What the server would refuse, said before saving. */
export function validateForm(form: SettingsForm): SettingsErrors {
  const errors: SettingsErrors = {};
  const key = form.anthropicKey.trim();
  if (key && !ANTHROPIC_KEY_PATTERN.test(key)) {
    errors.anthropicKey = 'That is not an Anthropic API key: they look like sk-ant-…';
  }
  const baseUrl = form.openaiBaseUrl.trim();
  if (baseUrl && (!isHttpUrl(baseUrl) || baseUrl.length > 2048)) {
    errors.openaiBaseUrl = 'Enter an http:// or https:// URL, e.g. http://localhost:11434/v1';
  }
  const token = form.claudeCodeToken.trim();
  // A request header carries it: one line of visible ASCII, no spaces.
  if (token && (!/^[\x21-\x7e]+$/.test(token) || token.length > 4096)) {
    errors.claudeCodeToken = 'That is not a token: paste the one line `claude setup-token` printed';
  }
  if (form.scenario.trim().length > 500) errors.scenario = 'At most 500 characters';
  for (const agent of AGENT_TYPES) {
    const { model, maxTokens } = form.agents[agent];
    const problems: { model?: string; maxTokens?: string } = {};
    if (!model.trim()) problems.model = 'Required';
    else if (model.trim().length > 200) problems.model = 'At most 200 characters';
    const tokens = Number(maxTokens);
    if (!Number.isInteger(tokens) || tokens < MIN_TOKENS || tokens > MAX_TOKENS) {
      problems.maxTokens = `A whole number from ${MIN_TOKENS} to ${MAX_TOKENS.toLocaleString()}`;
    }
    if (problems.model || problems.maxTokens) errors.agents = { ...errors.agents, [agent]: problems };
  }
  return errors;
}

export const hasErrors = (errors: SettingsErrors) => Object.keys(errors).length > 0;

/** The settings a valid form stands for. */
export function fromForm(form: SettingsForm): RunSettings {
  return {
    provider: form.provider,
    anthropicKey: form.anthropicKey.trim(),
    openaiBaseUrl: form.openaiBaseUrl.trim(),
    openaiKey: form.openaiKey.trim(),
    claudeCodeToken: form.claudeCodeToken.trim(),
    scenario: form.scenario.trim(),
    agents: Object.fromEntries(
      AGENT_TYPES.map((agent) => [
        agent,
        { model: form.agents[agent].model.trim(), maxTokens: Number(form.agents[agent].maxTokens) },
      ]),
    ) as RunSettings['agents'],
  };
}

/** Whether two settings say the same, whatever the order of their keys (a stored copy's may differ). */
export function sameSettings(a: RunSettings, b: RunSettings): boolean {
  return (
    a.provider === b.provider &&
    a.anthropicKey === b.anthropicKey &&
    a.openaiBaseUrl === b.openaiBaseUrl &&
    a.openaiKey === b.openaiKey &&
    a.claudeCodeToken === b.claudeCodeToken &&
    a.scenario === b.scenario &&
    AGENT_TYPES.every(
      (agent) =>
        a.agents[agent].model === b.agents[agent].model &&
        a.agents[agent].maxTokens === b.agents[agent].maxTokens,
    )
  );
}
