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

export interface LlmProvider {
  readonly id: ProviderId;
  /** True for the offline simulator: what it writes is scripted, not AI. */
  readonly simulated: boolean;
  stream(request: LlmRequest): Promise<LlmResponse>;
}
