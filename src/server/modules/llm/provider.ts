import type { AgentType, ProviderId, TokenUsage } from '@/contracts/pipeline.js';

/** One streamed completion: a system prompt and one user message. */
export interface LlmRequest {
  agent: AgentType;
  model: string;
  maxTokens: number;
  system: string;
  prompt: string;
  /** Aborts the stream in flight (cancellation). */
  signal?: AbortSignal;
  /** Called with each text delta as it arrives. */
  onText: (chunk: string) => void;
  /** Run id, sent to the simulator only (it keeps per-run scenario state). */
  runId?: string;
}

export interface LlmResponse {
  text: string;
  usage: TokenUsage;
  model: string;
  stopReason: string | null;
}

export type LlmErrorKind =
  | 'auth' // 401/403: stop, not retryable
  | 'rate_limit' // 429
  | 'overloaded' // 529
  | 'server' // 5xx
  | 'network' // connection refused/reset/dropped mid-stream, timeouts
  | 'bad_request' // 400/404/422: our request or the model name is wrong
  | 'aborted'; // cancelled by us

/** A provider failure with secrets already removed from its message. */
export class LlmError extends Error {
  constructor(
    readonly kind: LlmErrorKind,
    message: string,
    readonly status?: number,
    /** The provider's `retry-after` hint (429/529), when it sent one. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'LlmError';
  }

  /** Worth pausing and retrying (429, 529, 5xx, network); auth and bad requests are not. */
  get retryable(): boolean {
    return (
      this.kind === 'rate_limit' ||
      this.kind === 'overloaded' ||
      this.kind === 'server' ||
      this.kind === 'network'
    );
  }
}

/** A tool the model may call: its name, what it does, and its input's JSON Schema. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** A tool call as the model made it: `arguments` is the JSON text it sent (maybe not valid JSON). */
export interface ToolCallRequest {
  id: string;
  name: string;
  arguments: string;
}

/** What a tool call came to, as the model is told it; `ok: false` marks a tool error. */
export interface ToolCallOutcome {
  callId: string;
  ok: boolean;
  content: string;
}

/** One message of a tool-using conversation, in AutoCoder's words (each provider spells it its way). */
export type TurnMessage =
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; toolCalls: ToolCallRequest[] }
  /** The results of the previous turn's calls, and maybe a word to the model after them. */
  | { role: 'tool'; results: ToolCallOutcome[]; text?: string };

/** One turn of a tool-using conversation: the model answers with prose, tool calls, or both. */
export interface TurnRequest {
  agent: AgentType;
  model: string;
  maxTokens: number;
  system: string;
  tools: ToolSpec[];
  messages: TurnMessage[];
  /** `none`: the model must answer in prose (the tools stay declared for the history's sake). */
  toolChoice?: 'auto' | 'none';
  /**
   * Mark the system prompt, the tools and the conversation so far for the provider's prompt
   * cache (Anthropic's cache_control; OpenAI-compatible endpoints cache prefixes themselves).
   */
  cache?: boolean;
  signal?: AbortSignal;
  /** Called with each text delta as it arrives. */
  onText: (chunk: string) => void;
  /** Called when the model starts a tool call (its input still streaming). */
  onToolCallStart?: (call: { id: string; name: string }) => void;
  /** Called with each piece of a tool call's input JSON as it arrives (to bound what a turn sends). */
  onToolInput?: (chunk: string) => void;
  runId?: string;
}

export interface TurnResponse {
  text: string;
  toolCalls: ToolCallRequest[];
  usage: TokenUsage;
  model: string;
  /** Anthropic's or OpenAI's own word: end_turn / tool_use / max_tokens, stop / tool_calls / length. */
  stopReason: string | null;
}

export interface LlmProvider {
  readonly id: ProviderId;
  /** True for the offline simulator: what it writes is scripted, not AI. */
  readonly simulated: boolean;
  /** One streamed answer to one prompt (the one-shot agents). */
  stream(request: LlmRequest): Promise<LlmResponse>;
  /** One streamed turn of a tool-using conversation (the agent loop). */
  turn(request: TurnRequest): Promise<TurnResponse>;
}

/** One-shot streaming as a turn with no tools: one user message, the answer's text. */
export function streamAsTurn(turn: LlmProvider['turn']): LlmProvider['stream'] {
  return async (request) => {
    const { text, usage, model, stopReason } = await turn({
      ...request,
      tools: [],
      messages: [{ role: 'user', text: request.prompt }],
    });
    return { text, usage, model, stopReason };
  };
}
