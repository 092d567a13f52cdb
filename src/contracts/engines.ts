import type { CoderEngineId } from './projects.js';

/**
 * Which model endpoint an engine talks to: `any` (AutoCoder's own engines, through the run's
 * provider), `anthropic` (Claude Code: the Anthropic Messages API — Anthropic or the simulator),
 * `openai-responses` (Codex: an OpenAI-compatible endpoint with the Responses API, or the simulator).
 */
export type EngineEndpoint = 'any' | 'anthropic' | 'openai-responses';

/** GET /api/engines — one coder engine and whether this server can run it. */
export interface EngineInfo {
  id: CoderEngineId;
  label: string;
  /** AutoCoder's own (always available) or a person's coding agent run in the sandbox. */
  builtIn: boolean;
  available: boolean;
  /** Why it is not available (not installed, no sandbox, cannot start); absent when it is. */
  reason?: string;
  /** How an operator installs it, when it is not installed. */
  install?: string;
  /** The installed version (external engines). */
  version?: string;
  endpoint: EngineEndpoint;
}

export interface EnginesResponse {
  engines: EngineInfo[];
}

/**
 * The header that carries a Claude Code OAuth token (made with `claude setup-token`) with the
 * request that starts, retries or resumes a run; used in place of an Anthropic API key by the
 * Claude Code engine only. Never stored.
 */
export const CLAUDE_CODE_TOKEN_HEADER = 'x-claude-code-oauth-token';
