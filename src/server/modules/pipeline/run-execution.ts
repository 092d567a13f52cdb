import path from 'node:path';
import { MAX_RETRIES } from '@/contracts/pipeline.js';
import { retryCostsAttempt } from '@/contracts/run-lifecycle.js';
import type { Limiter } from '@/server/lib/limiter.js';
import type { Logger } from '@/server/lib/logger.js';
import type { LlmProvider } from '../llm/provider.js';
import { removeWorktreeIfSafe } from '../workspace/safe-removal.js';
import { createRunWorktree, resetWorktree } from '../workspace/worktree.js';
import { describeFailure, RunTimeoutError } from './failures.js';
import type { ProviderFactory } from './pipeline-deps.js';
import type { ResolvedProvider } from './provider-resolution.js';
import { addUnrecordedUsage, usagePatch } from './run-calls.js';
import { buildRunContext, type DriverEnv, type RunContext } from './run-context.js';
import { driveRun } from './run-driver.js';
import type { RunHandle } from './run-registry.js';
import { findRun, type RunRow, taskWithProject } from './runs.repo.js';

export interface ExecutionEnv extends DriverEnv {
  dataDir: string;
  providers: ProviderFactory;
  /** Worktree setups at once: each forks git several times, and a burst of starts would hold up every request. */
  setups: Limiter;
}

/** Where a run's worktree is, before it has recorded one. */
export const worktreePathOf = (dataDir: string, runId: string) => path.join(dataDir, 'worktrees', runId);

/**
 * Executes one run in this process: reads its task and project, builds its context whole,
 * gives it its worktree, lets the driver run its phases, and pauses or fails it on an error.
 * Never throws: a failure it cannot even record is logged.
 */
export async function executeRun(
  env: ExecutionEnv,
  handle: RunHandle,
  row: RunRow,
  run: { userId: string; resolved: ResolvedProvider },
): Promise<void> {
  const log = env.logger.child({ taskId: row.taskId, runId: row.id });
  try {
    const ctx = await contextOf(env, handle, row, run);
    if (!ctx) return;
    try {
      await env.setups.run(() => prepareWorktree(ctx, row));
      if (!handle.cancelled) await driveRun(env, ctx, row);
    } catch (error) {
      if (handle.cancelled) return await keepSpend(env, ctx, error);
      await pauseOrFail(env, ctx, error, log);
    }
    if (handle.cancelled) return await keepSpend(env, ctx, undefined);
    await afterExecution(env, ctx, log);
  } catch (error) {
    // Recording the failure failed too (the database went away): nobody awaits a background run.
    log.error('pipeline run stopped by an error it could not record', { error });
  }
}

/** The run's context, built whole from its task and project; null when it was cancelled or its task deleted meanwhile. */
async function contextOf(
  env: ExecutionEnv,
  handle: RunHandle,
  row: RunRow,
  run: { userId: string; resolved: ResolvedProvider },
): Promise<RunContext | null> {
  if (handle.cancelled) return null;
  const found = await taskWithProject(env.db, row.taskId);
  if (!found || handle.cancelled) return null;
  return buildRunContext(row, found, {
    userId: run.userId,
    handle,
    provider: providerFor(env, run.resolved, row.id),
    credentials: { ...run.resolved, runId: row.id },
    worktreePath: worktreePathOf(env.dataDir, row.id),
  });
}

/** Gives the run its worktree on its branch (created, or reset to the recorded head when resuming). */
async function prepareWorktree(ctx: RunContext, row: RunRow) {
  if (ctx.handle.cancelled) return;
  const { baseCommit } = await createRunWorktree({
    repoPath: ctx.repoPath,
    worktreePath: ctx.worktreePath,
    branch: ctx.branch,
    baseBranch: ctx.defaultBranch,
  });
  if (ctx.baseCommit) {
    // Resuming (retry, restart): drop what a half-done step left behind — uncommitted files,
    // or a commit made just before the process died and never recorded — so that step runs
    // again from the recorded head and commits exactly once.
    await resetWorktree(ctx.worktreePath, ctx.headCommit ?? ctx.baseCommit);
  }
  ctx.baseCommit ??= baseCommit;
  if (
    row.branch !== ctx.branch ||
    row.worktreePath !== ctx.worktreePath ||
    row.baseCommit !== ctx.baseCommit
  ) {
    // Written with the first phase transition: one UPDATE fewer per run.
    ctx.pendingPatch = { branch: ctx.branch, worktreePath: ctx.worktreePath, baseCommit: ctx.baseCommit };
  }
}

/** The run's provider; a provider that cannot be built fails the first call instead of the request. */
function providerFor(env: ExecutionEnv, resolved: ResolvedProvider, runId: string): LlmProvider {
  try {
    return env.providers({ ...resolved, runId });
  } catch (error) {
    return {
      id: resolved.provider,
      simulated: resolved.provider === 'simulator',
      stream: () => Promise.reject(error),
      turn: () => Promise.reject(error),
    };
  }
}

/**
 * Provider errors pause the run for a retry (429, 5xx, network, the run's time limit, the task's
 * token budget) or end it (authentication, or retries used up); see failures.ts.
 */
async function pauseOrFail(env: ExecutionEnv, ctx: RunContext, error: unknown, log: Logger) {
  const reason: unknown = ctx.handle.controller.signal.reason;
  const cause = reason instanceof RunTimeoutError ? reason : error;
  const failure = describeFailure(cause, ctx.cursor, env.now());
  if (failure.logAsBug) log.error('pipeline step failed unexpectedly', { error });
  else log.warn('pipeline step failed', { type: failure.details.type, message: failure.details.message });
  const retriesUsedUp = retryCostsAttempt(failure.details.type) && ctx.cursor.retryCount >= MAX_RETRIES;
  const terminal = !failure.details.retryable || retriesUsedUp;
  const details = { ...failure.details, retryable: !terminal };
  // What the run spent is written with its pause or end: calls recorded since its last write, and
  // attempts of the failed call, count against the task's token budget.
  addUnrecordedUsage(ctx, error);
  const patch = { cursor: ctx.cursor, ...usagePatch(ctx) };
  if (terminal) await env.transitions.fail(ctx, ctx, patch, details);
  else await env.transitions.pause(ctx, details, patch);
}

/**
 * A run stopped from outside (cancel, shutdown) keeps what it spent since its last write: calls
 * recorded since, and the attempts of the call the stop aborted (an answer that did not parse).
 * Those tokens were billed, and they count against the task's budget like any others.
 */
async function keepSpend(env: ExecutionEnv, ctx: RunContext, error: unknown) {
  addUnrecordedUsage(ctx, error);
  await env.transitions.keepSpend(ctx, usagePatch(ctx));
}

/**
 * A run that stopped executing in the failed state, or whose task was deleted meanwhile,
 * gives back its worktree. Passed runs keep it until approval, paused ones until retry;
 * cancel and shutdown release their own.
 */
async function afterExecution(env: ExecutionEnv, ctx: RunContext, log: Logger) {
  if (ctx.handle.cancelled) return;
  const row = await findRun(env.db, ctx.runId);
  if (row) {
    if (row.status === 'failed') await releaseWorktree(env, row, ctx);
    return;
  }
  try {
    await removeWorktreeIfSafe(ctx);
  } catch (error) {
    log.warn('worktree of a deleted task could not be removed', { error });
  }
}

/** The repository a run's worktree belongs to, and its default branch (what keeps commits safe). */
export interface RunRepository {
  repoPath: string;
  defaultBranch: string;
}

/**
 * Removes a finished run's worktree through the no-loss guard; its branch and commits stay. A
 * run cancelled before it recorded its worktree may still have made one, at the path every run
 * is given. Never throws (it runs after the request that ended the run): a failure is logged.
 */
export async function releaseWorktree(
  env: Pick<ExecutionEnv, 'db' | 'dataDir' | 'logger'>,
  run: Pick<RunRow, 'id' | 'taskId' | 'worktreePath'>,
  known?: RunRepository,
) {
  const worktreePath = run.worktreePath ?? worktreePathOf(env.dataDir, run.id);
  try {
    const repo = known ?? (await taskWithProject(env.db, run.taskId))?.project;
    if (repo)
      await removeWorktreeIfSafe({
        repoPath: repo.repoPath,
        worktreePath,
        defaultBranch: repo.defaultBranch,
      });
  } catch (error) {
    env.logger.warn('worktree could not be removed', { runId: run.id, error });
  }
}
