import { describe, expect, it } from 'vitest';
import type { RunCursor } from '@/contracts/run-lifecycle.js';
import { AppError } from '@/server/lib/errors.js';
import { GitError } from '@/server/lib/git.js';
import { LlmError } from '../llm/provider.js';
import { AgentOutputError, AnswerTooLargeError } from './agents/agent-base.js';
import { describeFailure } from './failures.js';

const cursor = (phase: RunCursor['phase'], retryCount = 0): RunCursor => ({
  phase,
  subtaskIndex: 0,
  roundStart: 0,
  retryCount,
});

describe('describeFailure', () => {
  it('pauses on unsafe file paths from the coder (INVALID_AGENT_OUTPUT) as a parse error', () => {
    const error = new AppError(
      'INVALID_AGENT_OUTPUT',
      'Refused unsafe file paths: "../x" (leaves the worktree)',
    );
    const { details, logAsBug } = describeFailure(error, cursor('coding', 1), 42);
    expect(details).toEqual({
      type: 'parse_error',
      message: error.message,
      failedAgent: 'coder',
      failedPhase: 'coding',
      retryable: true,
      retryCount: 1,
      maxRetries: 3,
      timestamp: 42,
    });
    expect(logAsBug).toBe(false);
  });

  it('pauses when an agent’s answer did not parse twice', () => {
    const { details } = describeFailure(new AgentOutputError('reviewer', 'bad'), cursor('reviewing'), 1);
    expect(details).toMatchObject({ type: 'parse_error', failedAgent: 'reviewer', retryable: true });
  });

  it('pauses with answer_too_large when an answer went past the cap', () => {
    const { details, logAsBug } = describeFailure(
      new AnswerTooLargeError('coder', 1024),
      cursor('coding'),
      1,
    );
    expect(details).toMatchObject({ type: 'answer_too_large', failedAgent: 'coder', retryable: true });
    expect(details.message).toMatch(/1024 bytes/);
    expect(logAsBug).toBe(false);
  });

  it.each([
    ['rate_limit', 429, true, 'api_error'],
    ['overloaded', 529, true, 'api_error'],
    ['server', 500, true, 'api_error'],
    ['network', undefined, true, 'timeout'],
    ['auth', 401, false, 'api_error'],
  ] as const)(
    'maps an LlmError of kind %s (status %s): retryable %s, type %s',
    (kind, status, retryable, type) => {
      const { details, logAsBug } = describeFailure(
        new LlmError(kind, 'provider said no', status),
        cursor('planning'),
        1,
      );
      expect(details).toMatchObject({ type, retryable, failedAgent: 'planner', failedPhase: 'planning' });
      if (status) expect(details.statusCode).toBe(status);
      else expect(details).not.toHaveProperty('statusCode');
      expect(logAsBug).toBe(false);
    },
  );

  it('names the fixing phase’s agent as the coder', () => {
    expect(describeFailure(new LlmError('server', 'x', 500), cursor('fixing'), 1).details).toMatchObject({
      failedAgent: 'coder',
      failedPhase: 'fixing',
    });
  });

  it('treats git failures and unknown errors as bugs to log, still retryable', () => {
    expect(describeFailure(new GitError('git commit failed', 128, ''), cursor('coding'), 1)).toMatchObject({
      details: { type: 'unknown', retryable: true },
      logAsBug: true,
    });
    expect(describeFailure(new TypeError('boom'), cursor('coding'), 1)).toMatchObject({
      details: { type: 'unknown', message: 'boom', retryable: true },
      logAsBug: true,
    });
  });
});
