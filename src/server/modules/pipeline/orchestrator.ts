import path from 'node:path';
import {
  AGENT_CONFIGS,
  type AgentConfig,
  type AgentType,
  type ErrorDetails,
  type FileChange,
  MAX_RETRIES,
  type PipelineRunDetail,
  type ProviderId,
  type RequestChangesInput,
  type ReviewResult,
  type RunOptions,
  type Subtask,
} from '../../../contracts/pipeline.js';
import type { Db } from '../../db/client.js';
import { isUniqueViolation } from '../../lib/db-errors.js';
import { AppError } from '../../lib/errors.js';
import { KeyedMutex } from '../../lib/keyed-mutex.js';
import type { Logger } from '../../lib/logger.js';
import { taskStream } from '../events/bus.js';
import type { EventLog } from '../events/event-log.js';
import type { LlmProvider } from '../llm/provider.js';
import { getOwnedTask } from '../tasks/tasks.js';
import { branchName } from '../workspace/branch-name.js';
import { mergeBranch } from '../workspace/merge.js';
import { createRunWorktree, removeWorktree } from '../workspace/worktree.js';
import { describeFailure } from './failures.js';
import {
  type ProviderDefaults,
  type RequestSecrets,
  type ResolvedProvider,
  resolveProvider,
} from './provider-resolution.js';
import { agentOf, type RunContext, type RunCursor } from './run-context.js';
import { announceEnd, type DriverEnv, driveRun } from './run-driver.js';
import { RunEvents } from './run-events.js';
import { toRunDetail, toRunSummary } from './run-view.js';
import {
  countRunningForUser,
  findRun,
  insertRun,
  latestRunOfTask,
  type RunRow,
  runningRuns,
  runsOfTask,
  taskWithProject,
} from './runs.repo.js';

/** Builds the provider of one run from what was resolved for it (keys included, in memory only). */
export type ProviderFactory = (resolved: ResolvedProvider & { runId: string }) => LlmProvider;

export interface OrchestratorDeps {
  db: Db;
  events: EventLog;
  logger: Logger;
  now: () => number;
  dataDir: string;
  providers: ProviderFactory;
  providerDefaults: ProviderDefaults;
  /** First retry waits this long, then twice as long each time (BR-04-017: 1 s, 2 s, 4 s). */
  backoffBaseMs?: number;
  /** Running pipelines per user (NFR-04-009). */
  maxRunningPerUser?: number;
}

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
 * The pipeline's control plane (seed 004 step 10): starts runs, executes them in this
 * process, and handles cancel, retry, approve and request-changes. Each run works in its
 * own worktree on its own branch; state is written at every transition.
 */
export class Orchestrator {
  private readonly active = new Map<string, ActiveRun>();
  private readonly cleanups = new Set<Promise<void>>();
  private readonly userLocks = new KeyedMutex();
  private readonly events: RunEvents;
  private readonly env: DriverEnv;
  private readonly backoffBaseMs: number;
  private readonly maxRunningPerUser: number;

  constructor(private readonly deps: OrchestratorDeps) {
    this.events = new RunEvents(deps.db, deps.events, deps.now);
    this.env = {
      db: deps.db,
      events: this.events,
      logger: deps.logger,
      now: deps.now,
      budgets: { repoMap: 20_000, files: 60_000, diff: 120_000 },
    };
    this.backoffBaseMs = deps.backoffBaseMs ?? 1000;
    this.maxRunningPerUser = deps.maxRunningPerUser ?? 5;
  }

  /** Seed 004 step 11.1: validates, records the run, answers at once; the run goes on in the background. */
  async start(
    userId: string,
    taskId: string,
    options: RunOptions,
    secrets: RequestSecrets,
  ): Promise<{ runId: string }> {
    const provider = options.provider ?? 'anthropic';
    const resolved = resolveProvider(provider, options, secrets, this.deps.providerDefaults);
    const task = await getOwnedTask(this.deps, userId, taskId);
    if (task.status !== 'backlog' && task.status !== 'spec') {
      throw new AppError(
        'INVALID_PIPELINE_STATE',
        'Pipeline can only start on tasks in Backlog or Spec status',
      );
    }
    const latest = await latestRunOfTask(this.deps.db, taskId);
    if (latest && (latest.status === 'running' || latest.status === 'paused')) throw pipelineActive();
    const cursor: RunCursor = { phase: 'planning', subtaskIndex: 0, roundStart: 0, retryCount: 0 };
    const row = await this.withRunningSlot(userId, async () => {
      try {
        return await insertRun(this.deps.db, {
          taskId,
          provider,
          agentConfigs: agentConfigs(options),
          cursor,
          status: 'running',
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw pipelineActive();
        throw error;
      }
    });
    await this.deps.events.lastSeq(taskStream(taskId));
    await this.events.moveTask(task.projectId, taskId, row.id, 'spec');
    await this.events.task(taskId, row.id, {
      type: 'phase-change',
      data: { runId: row.id, phase: 'planning', status: 'running', iteration: 0, timestamp: this.deps.now() },
    });
    await this.events.runUpdate(task.projectId, row);
    this.launch(row, userId, resolved);
    this.deps.logger.info('pipeline started', { taskId, runId: row.id, provider });
    return { runId: row.id };
  }

  /** Seed 004 step 11.4: stops the run in any phase, aborting the agent call in flight (BR-04-014). */
  async cancel(userId: string, taskId: string): Promise<{ status: 'cancelled' }> {
    const task = await getOwnedTask(this.deps, userId, taskId);
    const run = await latestRunOfTask(this.deps.db, taskId);
    if (!run || (run.status !== 'running' && run.status !== 'paused')) {
      throw new AppError('INVALID_PIPELINE_STATE', 'No active pipeline to cancel');
    }
    const active = this.active.get(taskId);
    if (active && active.ctx.runId === run.id) {
      active.ctx.cancelled = true;
      active.ctx.controller.abort();
    }
    const updated = await this.events.updateRun(
      task.projectId,
      run.id,
      { phase: 'cancelled', status: 'cancelled', completedAt: new Date(this.deps.now()) },
      ['running', 'paused'],
    );
    if (!updated) throw new AppError('INVALID_PIPELINE_STATE', 'No active pipeline to cancel');
    await this.events.task(taskId, run.id, {
      type: 'phase-change',
      data: {
        runId: run.id,
        phase: 'cancelled',
        status: 'cancelled',
        iteration: run.iteration,
        timestamp: this.deps.now(),
      },
    });
    await this.events.moveTask(task.projectId, taskId, run.id, 'backlog');
    // The worktree goes once the aborted run has stopped touching it; idle() and shutdown() wait for this.
    // The repository is looked up now: the task may be deleted before the run has stopped.
    const repoPath = (await taskWithProject(this.deps.db, taskId))?.project.repoPath;
    this.track((active?.done ?? Promise.resolve()).then(() => this.releaseWorktree(updated, repoPath)));
    this.deps.logger.info('pipeline cancelled', { taskId, runId: run.id });
    return { status: 'cancelled' };
  }

  /** Seed 004 step 11.3: resumes a paused run at the failed phase and agent, after a backoff. */
  async retry(userId: string, taskId: string, options: RunOptions, secrets: RequestSecrets) {
    const task = await getOwnedTask(this.deps, userId, taskId);
    const run = await latestRunOfTask(this.deps.db, taskId);
    if (run?.status !== 'paused')
      throw new AppError('INVALID_PIPELINE_STATE', 'Only a paused pipeline can be retried');
    const cursor = run.cursor as RunCursor;
    if (cursor.retryCount >= MAX_RETRIES) {
      throw new AppError('INVALID_PIPELINE_STATE', `This step was already retried ${MAX_RETRIES} times`);
    }
    const resolved = resolveProvider(
      run.provider as ProviderId,
      { ...options },
      secrets,
      this.deps.providerDefaults,
    );
    const retryCount = cursor.retryCount + 1;
    const next: RunCursor = { ...cursor, retryCount };
    const configs = options.agents
      ? agentConfigs(options)
      : (run.agentConfigs as Record<AgentType, AgentConfig>);
    const updated = await this.withRunningSlot(userId, () =>
      this.events.updateRun(
        task.projectId,
        run.id,
        { status: 'running', phase: cursor.phase, cursor: next, errorDetails: null, agentConfigs: configs },
        ['paused'],
      ),
    );
    if (!updated) throw new AppError('INVALID_PIPELINE_STATE', 'Only a paused pipeline can be retried');
    const delay = this.backoffBaseMs * 2 ** (retryCount - 1);
    const failed = (run.errorDetails as ErrorDetails | null)?.failedAgent ?? agentOf(cursor.phase);
    this.events.chunk(
      taskId,
      run.id,
      failed,
      `\n[AutoCoder] Retrying in ${delay / 1000}s (retry ${retryCount}/${MAX_RETRIES})…\n`,
    );
    await this.events.task(taskId, run.id, {
      type: 'phase-change',
      data: {
        runId: run.id,
        phase: cursor.phase,
        status: 'running',
        iteration: run.iteration,
        timestamp: this.deps.now(),
      },
    });
    this.launch(updated, userId, resolved, delay);
    return { runId: run.id, retryCount, delayMs: delay };
  }

  /** Seed 004 step 11.6: back to coding with the person's feedback (task → building). */
  async requestChanges(userId: string, taskId: string, input: RequestChangesInput, secrets: RequestSecrets) {
    const task = await getOwnedTask(this.deps, userId, taskId);
    const run = await latestRunOfTask(this.deps.db, taskId);
    if (run?.status !== 'passed' || task.status !== 'review') {
      throw new AppError('INVALID_PIPELINE_STATE', 'Changes can be requested only for a task in Review');
    }
    const resolved = resolveProvider(run.provider as ProviderId, input, secrets, this.deps.providerDefaults);
    const iteration = run.iteration + 1;
    const subtasks = (run.subtasks as Subtask[] | null) ?? [];
    const cursor: RunCursor = {
      phase: 'coding',
      subtaskIndex: subtasks.length,
      roundStart: iteration,
      retryCount: 0,
      feedback: input.feedback,
    };
    const feedback = [
      ...((run.feedback as unknown[]) ?? []),
      { text: input.feedback, at: this.deps.now(), iteration },
    ];
    const updated = await this.withRunningSlot(userId, () =>
      this.events.updateRun(
        task.projectId,
        run.id,
        {
          status: 'running',
          phase: 'coding',
          iteration,
          cursor,
          feedback,
          completedAt: null,
          errorDetails: null,
        },
        ['passed'],
      ),
    );
    if (!updated)
      throw new AppError('INVALID_PIPELINE_STATE', 'Changes can be requested only for a task in Review');
    await this.events.moveTask(task.projectId, taskId, run.id, 'building');
    this.launch(updated, userId, resolved);
    return { runId: run.id, iteration };
  }

  /** Seed 004 step 11.5 plus the merge: the branch goes into the default branch, confirmed by git, then done. */
  async approve(userId: string, taskId: string) {
    const task = await getOwnedTask(this.deps, userId, taskId);
    const run = await latestRunOfTask(this.deps.db, taskId);
    if (run?.status !== 'passed' || task.status !== 'review') {
      throw new AppError('INVALID_PIPELINE_STATE', 'Task must be in Review status to approve');
    }
    const found = await taskWithProject(this.deps.db, taskId);
    if (!found) throw new AppError('TASK_NOT_FOUND', 'Task not found');
    let mergeCommit: string | null = null;
    if (run.branch) {
      const merged = await mergeBranch({
        repoPath: found.project.repoPath,
        branch: run.branch,
        defaultBranch: found.project.defaultBranch,
        message: `Merge ${run.branch}: ${task.title}`,
      });
      mergeCommit = merged.mergeCommit;
    }
    const updated = await this.events.updateRun(task.projectId, run.id, { mergeCommit });
    await this.events.moveTask(task.projectId, taskId, run.id, 'done');
    if (updated) await this.releaseWorktree(updated);
    this.deps.logger.info('pipeline approved', { taskId, runId: run.id, mergeCommit });
    return { status: 'done' as const, mergeCommit, branch: run.branch };
  }

  async status(
    userId: string,
    taskId: string,
  ): Promise<(PipelineRunDetail & { runId: string }) | { status: 'none' }> {
    await getOwnedTask(this.deps, userId, taskId);
    const run = await latestRunOfTask(this.deps.db, taskId);
    return run ? { runId: run.id, ...toRunDetail(run) } : { status: 'none' };
  }

  async history(userId: string, taskId: string) {
    await getOwnedTask(this.deps, userId, taskId);
    return (await runsOfTask(this.deps.db, taskId)).map(toRunSummary);
  }

  /** The run if it belongs to the user (404 otherwise). */
  async ownedRun(userId: string, runId: string): Promise<RunRow> {
    const run = await findRun(this.deps.db, runId);
    if (!run) throw new AppError('RUN_NOT_FOUND', 'Run not found');
    await getOwnedTask(this.deps, userId, run.taskId).catch((error: unknown) => {
      throw error instanceof AppError ? new AppError('RUN_NOT_FOUND', 'Run not found') : error;
    });
    return run;
  }

  /**
   * At start-up: runs a previous process left running are marked failed with the reason
   * and their tasks go back to backlog. Their commits stay on their branches; events stay.
   */
  async recoverInterrupted(): Promise<number> {
    const stale = await runningRuns(this.deps.db);
    for (const { run, projectId } of stale) {
      await this.failInterrupted(run, projectId, 'The server stopped while this run was in progress');
    }
    if (stale.length) this.deps.logger.warn('marked interrupted runs as failed', { count: stale.length });
    return stale.length;
  }

  /** Stops every run of this process (shutdown): aborted, marked failed, tasks back to backlog. */
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
        await this.failInterrupted(row, ctx.projectId, 'The server was stopped during this run');
    }
  }

  /**
   * Runs `setRunning` (which makes one of the user's runs running) only while the user has
   * fewer than the maximum running (NFR-04-009). Counting and writing hold the user's lock, so
   * simultaneous starts cannot all pass the count.
   */
  private withRunningSlot<T>(userId: string, setRunning: () => Promise<T>): Promise<T> {
    return this.userLocks.run(userId, async () => {
      if ((await countRunningForUser(this.deps.db, userId)) >= this.maxRunningPerUser) {
        throw new AppError('TOO_MANY_PIPELINES', 'Maximum concurrent pipelines reached');
      }
      return setRunning();
    });
  }

  /** Resolves when no run of this process is executing and no cleanup is pending (tests, benchmarks). */
  async idle(): Promise<void> {
    while (this.active.size > 0 || this.cleanups.size > 0) {
      await Promise.allSettled([...[...this.active.values()].map((r) => r.done), ...this.cleanups]);
    }
  }

  /** Work that outlives the request that started it (a cancelled run's worktree removal). */
  private track(work: Promise<void>) {
    this.cleanups.add(work);
    void work.finally(() => this.cleanups.delete(work));
  }

  get activeCount(): number {
    return this.active.size;
  }

  private async failInterrupted(run: RunRow, projectId: string, reason: string) {
    const details: ErrorDetails = {
      type: 'unknown',
      message: `${reason}. ${run.branch ? `Commits made so far are on branch ${run.branch}.` : ''}`.trim(),
      retryable: false,
      retryCount: 0,
      maxRetries: MAX_RETRIES,
      timestamp: this.deps.now(),
    };
    const updated = await this.events.updateRun(
      projectId,
      run.id,
      { status: 'failed', phase: 'failed', errorDetails: details, completedAt: new Date(this.deps.now()) },
      ['running'],
    );
    if (!updated) return;
    await this.events.task(run.taskId, run.id, { type: 'error', data: { ...details, runId: run.id } });
    const ended = {
      taskId: run.taskId,
      projectId,
      runId: run.id,
      iteration: run.iteration,
      fileChanges: (run.fileChanges as { files?: FileChange[] } | null)?.files ?? [],
      review: (run.reviewFindings as ReviewResult | null) ?? null,
    };
    await announceEnd({ events: this.events, now: this.deps.now }, ended, 'failed');
    // Nothing works in it any more; what was committed stays on the branch.
    await this.releaseWorktree(updated);
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
  private launch(row: RunRow, userId: string, resolved: ResolvedProvider, delayMs = 0) {
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
      if (ctx.cancelled) return;
      const found = await taskWithProject(this.deps.db, ctx.taskId);
      if (!found) return;
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
      ctx.baseCommit ??= baseCommit;
      if (
        row.branch !== ctx.branch ||
        row.worktreePath !== ctx.worktreePath ||
        row.baseCommit !== ctx.baseCommit
      ) {
        // Written with the first phase transition: one UPDATE fewer per run.
        ctx.pendingPatch = { branch: ctx.branch, worktreePath: ctx.worktreePath, baseCommit: ctx.baseCommit };
      }
      if (ctx.cancelled) return;
      await driveRun(this.env, ctx, row);
    } catch (error) {
      if (ctx.cancelled) return;
      await this.pauseOrFail(ctx, error, log);
    }
    await this.afterExecution(ctx, log);
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

  /** Provider errors pause (429, 5xx, network; BR-04-017) or stop the run (authentication); see failures.ts. */
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
  private async releaseWorktree(run: RunRow, knownRepoPath?: string) {
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

const pipelineActive = () => new AppError('PIPELINE_ACTIVE', 'A pipeline is already running for this task');

function agentConfigs(options: RunOptions): Record<AgentType, AgentConfig> {
  return {
    planner: options.agents?.planner ?? AGENT_CONFIGS.planner,
    coder: options.agents?.coder ?? AGENT_CONFIGS.coder,
    reviewer: options.agents?.reviewer ?? AGENT_CONFIGS.reviewer,
  };
}

function lastFeedbackOf(row: RunRow): string | undefined {
  const entries = (row.feedback as { text: string }[] | null) ?? [];
  return entries.at(-1)?.text;
}
