import { type ErrorDetails, MAX_RETRIES } from '@/contracts/pipeline.js';
import { agentOfPhase, type RunCursor } from '@/contracts/run-lifecycle.js';
import { AppError } from '@/server/lib/errors.js';
import { GitError } from '@/server/lib/git.js';
import { AgentStuckError } from '../agent-tools/agent-loop.js';
import { LockConflictError } from '../coordination/run-locks.js';
import { EngineUnavailableError } from '../engines/engine-catalog.js';
import { EngineFailedError } from '../engines/engine-errors.js';
import { LlmError } from '../llm/provider.js';
import { SetupFailedError } from '../setup/setup-errors.js';
import { AgentOutputError, AnswerTooLargeError } from './agents/agent-base.js';
import { BudgetExceededError } from './budget.js';

/** A run worked longer than its time limit (AUTOCODER_RUN_TIMEOUT_MS): it is paused, and Retry gives it a new limit. */
export class RunTimeoutError extends Error {
  constructor(readonly limitMs: number) {
    super(
      `The run took longer than ${formatDuration(limitMs)} and was stopped. Retry resumes it where it stopped, with a new time limit.`,
    );
    this.name = 'RunTimeoutError';
  }
}

function formatDuration(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} minute${ms === 60_000 ? '' : 's'}`;
  if (ms >= 1000 && ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}

/** A run this process can no longer carry on (it stopped, or a previous one died): retryable, at its cursor. */
export function interruptedDetails(
  run: { cursor: RunCursor; branch: string | null },
  reason: string,
  now: number,
): ErrorDetails {
  return {
    type: 'interrupted',
    message: `${reason}. Retry resumes it where it stopped${run.branch ? `, on branch ${run.branch}` : ''}.`,
    failedAgent: agentOfPhase(run.cursor.phase),
    failedPhase: run.cursor.phase,
    retryable: true,
    retryCount: run.cursor.retryCount,
    maxRetries: MAX_RETRIES,
    timestamp: now,
  };
}

/**
 * How a failed step is reported and whether it can be retried: authentication errors stop
 * the run; rate limits, overloads, server and network errors, output that could not
 * be used (after the agent's own second try) and a call the task's token budget did not allow
 * pause it for the person to retry.
 */
export function describeFailure(
  error: unknown,
  cursor: RunCursor,
  now: number,
): { details: ErrorDetails; logAsBug: boolean } {
  const base = {
    failedAgent: agentOfPhase(cursor.phase),
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
  if (error instanceof EngineFailedError || error instanceof EngineUnavailableError) {
    return {
      details: { ...base, type: 'engine_failed', message: error.message, retryable: true },
      logAsBug: false,
    };
  }
  if (error instanceof SetupFailedError) {
    return {
      details: { ...base, type: 'setup_failed', message: error.message, retryable: true },
      logAsBug: false,
    };
  }
  if (error instanceof RunTimeoutError) {
    return {
      details: { ...base, type: 'run_timeout', message: error.message, retryable: true },
      logAsBug: false,
    };
  }
  if (error instanceof LockConflictError) {
    return {
      details: { ...base, type: 'lock_conflict', message: error.message, retryable: true },
      logAsBug: false,
    };
  }
  if (error instanceof BudgetExceededError) {
    return {
      details: {
        ...base,
        type: 'budget_exceeded',
        message: error.message,
        retryable: true,
        budget: {
          spentTokens: error.spentTokens,
          budgetTokens: error.budgetTokens,
          callInputTokens: error.call.inputTokens,
          callMaxOutputTokens: error.call.maxOutputTokens,
        },
      },
      logAsBug: false,
    };
  }
  if (error instanceof AgentStuckError) {
    return {
      details: { ...base, type: 'agent_stuck', message: error.message, retryable: true },
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
  if (error instanceof AppError && error.code === 'SANDBOX_DISABLED') {
    // Retrying cannot help: the server runs no repository code until its operator allows it.
    return {
      details: {
        ...base,
        type: 'unknown',
        message: `${error.message}. The project's check command cannot run: clear it in the project's settings, or ask the operator to enable the sandbox.`,
        retryable: false,
      },
      logAsBug: false,
    };
  }
  if (error instanceof AppError && error.code === 'NESTED_REPOSITORY') {
    // Not a failing test for the coder to fix, nor a hiccup a retry gets past: the check (or a
    // service) tampers with the worktree, and the run ends with nothing of it committed.
    return {
      details: {
        ...base,
        type: 'nested_repository',
        message: `${error.message}. Change the project's check so that it leaves no git repository in the worktree, then start the task again.`,
        retryable: false,
      },
      logAsBug: false,
    };
  }
  if (error instanceof GitError) {
    return { details: { ...base, type: 'unknown', message: error.message, retryable: true }, logAsBug: true };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { details: { ...base, type: 'unknown', message, retryable: true }, logAsBug: true };
}
