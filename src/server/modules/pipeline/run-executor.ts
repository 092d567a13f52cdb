import path from 'node:path';
import {
  AGENT_CONFIGS,
  type AgentConfig,
  type AgentType,
  type ErrorDetails,
  type FileChange,
  MAX_RETRIES,
  type ReviewResult,
  type Subtask,
} from '@/contracts/pipeline.js';
import { Limiter } from '@/server/lib/limiter.js';
import type { Logger } from '@/server/lib/logger.js';
import type { LlmProvider } from '../llm/provider.js';
import { branchName } from '../workspace/branch-name.js';
import { createRunWorktree, removeWorktree, resetWorktree } from '../workspace/worktree.js';
import { describeFailure } from './failures.js';
import type { OrchestratorDeps } from './pipeline-deps.js';
import type { ResolvedProvider } from './provider-resolution.js';
import { agentOf, type RunContext, type RunCursor } from './run-context.js';
import { announceEnd, type DriverEnv, driveRun } from './run-driver.js';
import type { RunEvents } from './run-events.js';
import { findRun, type RunRow, taskWithProject } from './runs.repo.js';

/**
 * Worktree setups at once. Each forks git several times; a burst of starts would otherwise fork
 * dozens of processes together and hold up every request sharing the event loop.
 */
const WORKTREE_SETUPS_AT_ONCE = 2;

interface ActiveRun {
  ctx: RunContext;
  done: Promise<void>;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/**
 * The runs executing in this process: launches a run in the background, drives it through
 * its phases (run-driver), pauses or fails it on errors, and gives its worktree back when it
 * ends. The orchestrator decides what may happen; this carries it out.
 */
export class RunExecutor {
  private readonly active = new Map<string, ActiveRun>();
  private readonly cleanups = new Set<Promise<void>>();
  private readonly setups = new Limiter(WORKTREE_SETUPS_AT_ONCE);

  constructor(
    private readonly deps: OrchestratorDeps,
    private readonly events: RunEvents,
    private readonly env: DriverEnv,
  ) {}

  /** Stops the run's work at once (the stream in flight is aborted); resolves when it has stopped. */
  abort(taskId: string, runId: string): Promise<void> {
    const active = this.active.get(taskId);
    if (!active || active.ctx.runId !== runId) return Promise.resolve();
    active.ctx.cancelled = true;
    active.ctx.controller.abort();
    return active.done;
  }

  /** Stops every run of this process (shutdown): aborted and paused as interrupted, to be retried. */
  async shutdown(): Promise<void> {
    const runs = [...this.active.values()];
    for (const { ctx } of runs) {
      ctx.cancelled = true;
      ctx.controller.abort();
    }
    await Promise.allSettled([...runs.map((r) => r.done), ...this.cleanups]);
    for (const { ctx } of runs) {
      const row = await findRun(this.deps.db, ctx.runId);
      if (row?.status === 'running')
        await this.pauseInterrupted(row, ctx.projectId, 'The server was stopped during this run');
    }
  }

  /** Resolves when no run of this process is executing and no cleanup is pending (tests, benchmarks). */
  async idle(): Promise<void> {
    while (this.active.size > 0 || this.cleanups.size > 0) {
      await Promise.allSettled([...[...this.active.values()].map((r) => r.done), ...this.cleanups]);
    }
  }

  /** Work that outlives the request that started it (a cancelled run's worktree removal). */
  track(work: Promise<void>) {
    this.cleanups.add(work);
    void work.finally(() => this.cleanups.delete(work));
  }

  get activeCount(): number {
    return this.active.size;
  }

  /**
   * A run this process can no longer carry on (the process stopped, or a previous one died):
   * paused with a retryable `interrupted` error. Its worktree, branch and commits stay; Retry
   * resumes it at its saved cursor.
   */
  async pauseInterrupted(run: RunRow, projectId: string, reason: string) {
    const cursor = run.cursor as RunCursor;
    const details: ErrorDetails = {
      type: 'interrupted',
      message: `${reason}. Retry resumes it where it stopped${run.branch ? `, on branch ${run.branch}` : ''}.`,
      failedAgent: agentOf(cursor.phase),
      failedPhase: cursor.phase,
      retryable: true,
      retryCount: cursor.retryCount,
      maxRetries: MAX_RETRIES,
      timestamp: this.deps.now(),
    };
    const updated = await this.events.updateRun(
      projectId,
      run.id,
      { status: 'paused', phase: 'paused', errorDetails: details },
      ['running'],
    );
    if (!updated) return;
    await this.events.task(run.taskId, run.id, { type: 'error', data: { ...details, runId: run.id } });
    await this.events.task(run.taskId, run.id, {
      type: 'phase-change',
      data: {
        runId: run.id,
        phase: 'paused',
        status: 'paused',
        iteration: run.iteration,
        timestamp: this.deps.now(),
      },
    });
  }

  /** The run's provider; a provider that cannot be built fails the first call instead of the request. */
  private providerFor(resolved: ResolvedProvider, row: RunRow): LlmProvider {
    try {
      return this.deps.providers({ ...resolved, runId: row.id });
    } catch (error) {
      return {
        id: resolved.provider,
        simulated: resolved.provider === 'simulator',
        stream: () => Promise.reject(error),
      };
    }
  }

  /** Builds the run's context and executes it in the background. */
  launch(row: RunRow, userId: string, resolved: ResolvedProvider, delayMs = 0) {
    const controller = new AbortController();
    const ctx: RunContext = {
      runId: row.id,
      taskId: row.taskId,
      projectId: '',
      userId,
      task: { title: '', description: '', category: '' },
      repoPath: '',
      defaultBranch: 'main',
      worktreePath: row.worktreePath ?? this.worktreePathOf(row.id),
      branch: row.branch ?? '',
      baseCommit: row.baseCommit,
      headCommit: row.headCommit,
      provider: this.providerFor(resolved, row),
      configs: (row.agentConfigs as Record<AgentType, AgentConfig> | null) ?? AGENT_CONFIGS,
      cursor: row.cursor as RunCursor,
      iteration: row.iteration,
      subtasks: (row.subtasks as Subtask[] | null) ?? [],
      fileChanges: ((row.fileChanges as { files?: FileChange[] } | null)?.files ?? []) as FileChange[],
      review: (row.reviewFindings as ReviewResult | null) ?? null,
      lastFeedback: (row.cursor as RunCursor).feedback ?? lastFeedbackOf(row),
      controller,
      cancelled: false,
      usage: { inputTokens: row.inputTokens, outputTokens: row.outputTokens, costUsd: row.costUsd },
    };
    const done = (async () => {
      // Nothing of the run happens in the turn of the request that launched it: that answers first.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (delayMs > 0) await sleep(delayMs, controller.signal);
      await this.execute(ctx, row);
    })()
      .catch((error: unknown) => {
        // Recording the failure failed too (the database went away): nobody awaits a background run.
        this.deps.logger.error('pipeline run stopped by an error it could not record', {
          taskId: ctx.taskId,
          runId: ctx.runId,
          error,
        });
      })
      .finally(() => {
        if (this.active.get(ctx.taskId)?.ctx === ctx) this.active.delete(ctx.taskId);
      });
    this.active.set(row.taskId, { ctx, done });
  }

  private async execute(ctx: RunContext, row: RunRow) {
    const log = this.deps.logger.child({ taskId: ctx.taskId, runId: ctx.runId });
    try {
      if (!(await this.setups.run(() => this.setUp(ctx, row)))) return;
      if (ctx.cancelled) return;
      await driveRun(this.env, ctx, row);
    } catch (error) {
      if (ctx.cancelled) return;
      await this.pauseOrFail(ctx, error, log);
    }
    await this.afterExecution(ctx, log);
  }

  /** Loads the task and gives the run its worktree; false when the run is gone or cancelled meanwhile. */
  private async setUp(ctx: RunContext, row: RunRow): Promise<boolean> {
    if (ctx.cancelled) return false;
    const found = await taskWithProject(this.deps.db, ctx.taskId);
    if (!found) return false;
    ctx.projectId = found.project.id;
    ctx.repoPath = found.project.repoPath;
    ctx.defaultBranch = found.project.defaultBranch;
    ctx.task = {
      title: found.task.title,
      description: found.task.description,
      category: found.task.category,
    };
    if (!ctx.branch) ctx.branch = branchName(found.task.title, ctx.runId.slice(0, 8));
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
    return true;
  }

  /**
   * A run that stopped executing in the failed state, or whose task was deleted meanwhile,
   * gives back its worktree. Passed runs keep it until approval, paused ones until retry;
   * cancel() and shutdown() release their own.
   */
  private async afterExecution(ctx: RunContext, log: Logger) {
    if (ctx.cancelled || !ctx.repoPath) return;
    const row = await findRun(this.deps.db, ctx.runId);
    if (row) {
      if (row.status === 'failed') await this.releaseWorktree(row);
      return;
    }
    try {
      await removeWorktree(ctx.repoPath, ctx.worktreePath);
    } catch (error) {
      log.warn('worktree of a deleted task could not be removed', { error });
    }
  }

  /** Provider errors pause the run for a retry (429, 5xx, network) or stop it (authentication); see failures.ts. */
  private async pauseOrFail(ctx: RunContext, error: unknown, log: Logger) {
    const failure = describeFailure(error, ctx.cursor, this.deps.now());
    if (failure.logAsBug) log.error('pipeline step failed unexpectedly', { error });
    else log.warn('pipeline step failed', { type: failure.details.type, message: failure.details.message });
    const terminal = !failure.details.retryable || ctx.cursor.retryCount >= MAX_RETRIES;
    const details = { ...failure.details, retryable: !terminal };
    const updated = await this.events.updateRun(
      ctx.projectId,
      ctx.runId,
      terminal
        ? {
            status: 'failed',
            phase: 'failed',
            errorDetails: details,
            completedAt: new Date(this.deps.now()),
            cursor: ctx.cursor,
          }
        : { status: 'paused', phase: 'paused', errorDetails: details, cursor: ctx.cursor },
      ['running'],
    );
    if (!updated) return;
    await this.events.task(ctx.taskId, ctx.runId, { type: 'error', data: { ...details, runId: ctx.runId } });
    if (terminal) {
      await announceEnd(this.env, ctx, 'failed');
    } else {
      await this.events.task(ctx.taskId, ctx.runId, {
        type: 'phase-change',
        data: {
          runId: ctx.runId,
          phase: 'paused',
          status: 'paused',
          iteration: ctx.iteration,
          timestamp: this.deps.now(),
        },
      });
    }
  }

  /**
   * Removes a finished run's worktree; its branch and commits stay. A run cancelled before it
   * recorded its worktree may still have made one, at the path launch() gives every run.
   * Never throws (it runs after the request that ended the run): a failure is logged.
   */
  async releaseWorktree(run: RunRow, knownRepoPath?: string) {
    const worktreePath = run.worktreePath ?? this.worktreePathOf(run.id);
    try {
      const repoPath = knownRepoPath ?? (await taskWithProject(this.deps.db, run.taskId))?.project.repoPath;
      if (repoPath) await removeWorktree(repoPath, worktreePath);
    } catch (error) {
      this.deps.logger.warn('worktree could not be removed', { runId: run.id, error });
    }
  }

  private worktreePathOf(runId: string) {
    return path.join(this.deps.dataDir, 'worktrees', runId);
  }
}

function lastFeedbackOf(row: RunRow): string | undefined {
  const entries = (row.feedback as { text: string }[] | null) ?? [];
  return entries.at(-1)?.text;
}
