import { type ErrorDetails, MAX_RETRIES } from '@/contracts/pipeline.js';
import { AppError } from '@/server/lib/errors.js';
import { GitError } from '@/server/lib/git.js';
import { LlmError } from '../llm/provider.js';
import { AgentOutputError, AnswerTooLargeError } from './agents/agent-base.js';
import { agentOf, type RunCursor } from './run-context.js';

/**
 * How a failed step is reported and whether it can be retried: authentication errors stop
 * the run; rate limits, overloads, server and network errors, and output that could not
 * be used (after the agent's own second try) pause it for the person to retry.
 */
export function describeFailure(
  error: unknown,
  cursor: RunCursor,
  now: number,
): { details: ErrorDetails; logAsBug: boolean } {
  const base = {
    failedAgent: agentOf(cursor.phase),
    failedPhase: cursor.phase,
    retryCount: cursor.retryCount,
    maxRetries: MAX_RETRIES,
    timestamp: now,
  };
  if (error instanceof LlmError) {
    const retryable = error.kind !== 'auth';
    const message =
      error.kind === 'auth'
        ? `The provider refused the API key: ${error.message}. Update the key in Settings and start again.`
        : error.message;
    return {
      details: {
        ...base,
        type: error.kind === 'network' ? 'timeout' : 'api_error',
        message,
        retryable,
        ...(error.status ? { statusCode: error.status } : {}),
      },
      logAsBug: false,
    };
  }
  if (error instanceof AnswerTooLargeError) {
    return {
      details: { ...base, type: 'answer_too_large', message: error.message, retryable: true },
      logAsBug: false,
    };
  }
  if (
    error instanceof AgentOutputError ||
    (error instanceof AppError && error.code === 'INVALID_AGENT_OUTPUT')
  ) {
    return {
      details: { ...base, type: 'parse_error', message: error.message, retryable: true },
      logAsBug: false,
    };
  }
  if (error instanceof GitError) {
    return { details: { ...base, type: 'unknown', message: error.message, retryable: true }, logAsBug: true };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { details: { ...base, type: 'unknown', message, retryable: true }, logAsBug: true };
}
