import path from 'node:path';
import type { ReviewFinding, ReviewResult } from '@/contracts/pipeline.js';
import { CHECK_FINDING_FILE, type CheckOutcome } from '@/contracts/run-lifecycle.js';
import { AppError } from '@/server/lib/errors.js';
import { runCheck } from '../checks/check-runner.js';
import type { DriverEnv, RunContext } from './run-context.js';

/** Longest part of the command quoted in a finding: the tail is what the coder needs. */
const COMMAND_SHOWN = 200;

/**
 * The verification gate: runs the project's check in the run's worktree after a coding or fixing
 * step, its output going to the task's stream as `check-log` events and one `check-result`.
 * Undefined when the project has no check. A check stopped by the run's abort (cancel, the run's
 * time limit) tells nothing more: the run ends or pauses on its next step.
 *
 * A check that left a nested git repository in the worktree ends the run (NESTED_REPOSITORY,
 * `nested_repository`) once its result is sent: that is no failing test for the coder to fix, and
 * the server commits nothing more in that tree.
 */
export async function verifyStep(env: DriverEnv, ctx: RunContext): Promise<CheckOutcome | undefined> {
  const check = ctx.check;
  if (!check) return undefined;
  const signal = ctx.handle.controller.signal;
  const appended: Promise<unknown>[] = [];
  const result = await env.transitions.events.step(ctx.projectId, ctx.taskId, ctx.runId, 'check', () =>
    runCheck({
      sandbox: env.sandbox,
      runId: ctx.runId,
      worktree: ctx.worktreePath,
      check,
      signal,
      // The worktree's `.git` file points into the project's git directory, hidden with the data
      // dir: git works in the check only if it is visible. Taken from the project's record.
      readOnlyPaths: [path.join(ctx.repoPath, '.git')],
      now: env.now,
      emit: (event) => {
        if (signal.aborted) return;
        const appending = env.transitions.events.task(ctx.taskId, ctx.runId, event);
        // Awaited below; a rejection must not go unhandled meanwhile.
        appending.catch(() => undefined);
        appended.push(appending);
      },
    }),
  );
  await Promise.all(appended);
  if (result.nestedRepository) {
    throw new AppError('NESTED_REPOSITORY', capitalised(result.nestedRepository));
  }
  const { runId: _runId, timestamp: _timestamp, ...outcome } = result;
  return outcome;
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** How a failed check is told in one line (exit code or timeout, and the command). */
export function checkFailureSummary(outcome: CheckOutcome, command: string | undefined): string {
  const how = outcome.timedOut
    ? 'was stopped at its time limit'
    : outcome.exitCode === null
      ? 'did not finish'
      : `failed with exit code ${outcome.exitCode}`;
  const shown = command
    ? `: ${command.length > COMMAND_SHOWN ? `${command.slice(0, COMMAND_SHOWN)}…` : command}`
    : '';
  return `The repository's check ${how} after ${(outcome.durationMs / 1000).toFixed(1)} s${shown}`;
}

/** The error finding a failing check adds to the review, carrying the end of its output. */
export function checkFinding(outcome: CheckOutcome, command: string | undefined): ReviewFinding {
  return {
    severity: 'error',
    file: CHECK_FINDING_FILE,
    line: 0,
    message: `${checkFailureSummary(outcome, command)}.\n\n${outcome.tail.trimEnd() || '(no output)'}`,
  };
}

/**
 * The review as the gate lets it stand: whatever the reviewer said, a failing check means the
 * review does not pass, with the check's finding first.
 */
export function withCheckVerdict(
  review: ReviewResult,
  outcome: CheckOutcome | undefined,
  command: string | undefined,
): ReviewResult {
  if (!outcome || outcome.passed) return review;
  return { ...review, passed: false, findings: [checkFinding(outcome, command), ...review.findings] };
}

/** The last check's failure as an agent is shown it; undefined when it passed or none ran. */
export function failedCheckOf(ctx: RunContext) {
  const check = ctx.cursor.check;
  if (!check || check.passed) return undefined;
  return { summary: checkFailureSummary(check, ctx.check?.command), tail: check.tail };
}
