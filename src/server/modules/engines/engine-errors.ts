import { LlmError, type LlmErrorKind } from '../llm/provider.js';
import type { DeferredProcess } from './engine-process.js';
import type { RelayStats } from './model-relay.js';

/** An external engine ended in an error of its own (crash, failed start, error result): retryable. */
export class EngineFailedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EngineFailedError';
  }
}

function kindOf(status: number): LlmErrorKind | null {
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'rate_limit';
  if (status === 529) return 'overloaded';
  if (status >= 500) return 'server';
  if (status === 400 || status === 404 || status === 422) return 'bad_request';
  return null;
}

/** The end of the engine's stderr, as one short paragraph. */
function stderrNote(proc: DeferredProcess | undefined, clean: (text: string) => string): string {
  const tail = clean(proc?.stderr ?? '')
    .trim()
    .split('\n')
    .slice(-5)
    .join('\n')
    .slice(-800);
  return tail ? `\n${tail}` : '';
}

/**
 * The error a failed engine step becomes, secrets removed: the endpoint's own refusal (401 auth,
 * 429 rate limit, 5xx) when the relay saw one, as the built-in coder's provider errors are; a
 * sandbox limit; else the engine's message and the end of its stderr.
 */
export function engineFailure(
  engine: string,
  proc: DeferredProcess | undefined,
  stats: RelayStats,
  clean: (text: string) => string,
  message: string,
): Error {
  const refusal = stats.lastRefusal;
  const kind = refusal ? kindOf(refusal.status) : null;
  if (refusal && kind) {
    return new LlmError(
      kind,
      clean(`${engine}: the model endpoint answered ${refusal.status}: ${refusal.body.slice(0, 300)}`),
      refusal.status,
    );
  }
  if (proc?.limit) return new EngineFailedError(`${engine} was stopped by the sandbox: ${proc.limit}`);
  const exit = proc?.exitCode !== null && proc?.exitCode !== undefined ? ` (exit ${proc.exitCode})` : '';
  return new EngineFailedError(clean(`${engine} failed${exit}: ${message}`) + stderrNote(proc, clean));
}
