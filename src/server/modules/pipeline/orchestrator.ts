import {
  AGENT_CONFIGS,
  type AgentConfig,
  type AgentType,
  type ErrorDetails,
  MAX_RETRIES,
  type PipelineRunDetail,
  type ProviderId,
  type RequestChangesInput,
  type RunOptions,
  type Subtask,
} from '@/contracts/pipeline.js';
import { isUniqueViolation } from '@/server/lib/db-errors.js';
import { AppError } from '@/server/lib/errors.js';
import { resolveAllowed } from '@/server/lib/guarded-fetch.js';
import { KeyedMutex } from '@/server/lib/keyed-mutex.js';
import { taskStream } from '../events/bus.js';
import { getOwnedTask } from '../tasks/tasks.js';
import { mergeBranch } from '../workspace/merge.js';
import type { OrchestratorDeps } from './pipeline-deps.js';
import { type RequestSecrets, type ResolvedProvider, resolveProvider } from './provider-resolution.js';
import { agentOf, type RunCursor } from './run-context.js';
import { RunEvents } from './run-events.js';
import { RunExecutor } from './run-executor.js';
import { toRunDetail, toRunSummary } from './run-view.js';
import {
  countActiveForUser,
  findRun,
  insertRun,
  latestRunOfTask,
  type RunRow,
  runningRuns,
  runsOfTask,
  taskWithProject,
} from './runs.repo.js';

/**
 * The pipeline's control plane: starts runs, executes them in this
 * process, and handles cancel, retry, approve and request-changes. Each run works in its
 * own worktree on its own branch; state is written at every transition.
 */
export class Orchestrator {
  private readonly runs: RunExecutor;
  private readonly userLocks = new KeyedMutex();
  private readonly events: RunEvents;
  private readonly backoffBaseMs: number;
  private readonly maxRunningPerUser: number;

  constructor(private readonly deps: OrchestratorDeps) {
    this.events = new RunEvents(deps.db, deps.events, deps.now);
    this.runs = new RunExecutor(deps, this.events, {
      db: deps.db,
      events: this.events,
      logger: deps.logger,
      now: deps.now,
      budgets: { repoMap: 20_000, files: 60_000, diff: 120_000 },
      ...(deps.maxAnswerBytes !== undefined ? { maxAnswerBytes: deps.maxAnswerBytes } : {}),
    });
    this.backoffBaseMs = deps.backoffBaseMs ?? 1000;
    this.maxRunningPerUser = deps.maxRunningPerUser ?? 5;
  }

  /**
   * Validates, records the run, answers at once; the run goes on in the
   * background, after the answer (its worktree setup waits its turn: see RunExecutor).
   */
  async start(
    userId: string,
    taskId: string,
    options: RunOptions,
    secrets: RequestSecrets,
  ): Promise<{ runId: string }> {
    const provider = options.provider ?? 'anthropic';
    const resolved = await this.resolve(provider, options, secrets);
    const task = await getOwnedTask(this.deps, userId, taskId);
    if (task.status !== 'backlog' && task.status !== 'spec') {
      throw new AppError(
        'INVALID_PIPELINE_STATE',
        'Pipeline can only start on tasks in Backlog or Spec status',
      );
    }
    // A run already active on the task is refused by the database (one active run per task): one query fewer.
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
    this.runs.launch(row, userId, resolved);
    this.deps.logger.info('pipeline started', { taskId, runId: row.id, provider });
    return { runId: row.id };
  }

  /** Stops a running or paused run in any phase, aborting the agent call in flight. */
  async cancel(userId: string, taskId: string): Promise<{ status: 'cancelled' }> {
    const task = await getOwnedTask(this.deps, userId, taskId);
    const run = await latestRunOfTask(this.deps.db, taskId);
    if (!run || (run.status !== 'running' && run.status !== 'paused')) {
      throw new AppError('INVALID_PIPELINE_STATE', 'No active pipeline to cancel');
    }
    const stopped = this.runs.abort(taskId, run.id);
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
    this.runs.track(stopped.then(() => this.runs.releaseWorktree(updated, repoPath)));
    this.deps.logger.info('pipeline cancelled', { taskId, runId: run.id });
    return { status: 'cancelled' };
  }

  /** Resumes a paused run at the failed phase and agent, after a backoff. */
  async retry(userId: string, taskId: string, options: RunOptions, secrets: RequestSecrets) {
    const task = await getOwnedTask(this.deps, userId, taskId);
    const run = await latestRunOfTask(this.deps.db, taskId);
    if (run?.status !== 'paused')
      throw new AppError('INVALID_PIPELINE_STATE', 'Only a paused pipeline can be retried');
    const cursor = run.cursor as RunCursor;
    if (cursor.retryCount >= MAX_RETRIES) {
      throw new AppError('INVALID_PIPELINE_STATE', `This step was already retried ${MAX_RETRIES} times`);
    }
    const resolved = await this.resolve(run.provider as ProviderId, options, secrets);
    const retryCount = cursor.retryCount + 1;
    const next: RunCursor = { ...cursor, retryCount };
    const configs = options.agents
      ? agentConfigs(options)
      : (run.agentConfigs as Record<AgentType, AgentConfig>);
    const updated = await this.withRunningSlot(
      userId,
      () =>
        this.events.updateRun(
          task.projectId,
          run.id,
          { status: 'running', phase: cursor.phase, cursor: next, errorDetails: null, agentConfigs: configs },
          ['paused'],
        ),
      run.id,
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
    this.runs.launch(updated, userId, resolved, delay);
    return { runId: run.id, retryCount, delayMs: delay };
  }

  /** Back to coding with the person's feedback (task → building). */
  async requestChanges(userId: string, taskId: string, input: RequestChangesInput, secrets: RequestSecrets) {
    const task = await getOwnedTask(this.deps, userId, taskId);
    const run = await latestRunOfTask(this.deps.db, taskId);
    if (run?.status !== 'passed' || task.status !== 'review') {
      throw new AppError('INVALID_PIPELINE_STATE', 'Changes can be requested only for a task in Review');
    }
    const resolved = await this.resolve(run.provider as ProviderId, input, secrets);
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
    this.runs.launch(updated, userId, resolved);
    return { runId: run.id, iteration };
  }

  /** Approves a passed run in Review: the branch goes into the default branch, confirmed by git, then done. */
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
    if (updated) await this.runs.releaseWorktree(updated);
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
   * At start-up: runs a previous process left running are paused with a retryable error of
   * type `interrupted`; Retry resumes each at its saved cursor, on its branch, with its commits.
   */
  async recoverInterrupted(): Promise<number> {
    const stale = await runningRuns(this.deps.db);
    for (const { run, projectId } of stale) {
      await this.runs.pauseInterrupted(run, projectId, 'The server stopped while this run was in progress');
    }
    if (stale.length) this.deps.logger.warn('paused interrupted runs', { count: stale.length });
    return stale.length;
  }

  /**
   * The run's provider; a base URL the user chose must lead to an address the network policy allows
   * (400 ADDRESS_NOT_ALLOWED). A name that does not resolve is left for the run to report.
   */
  private async resolve(
    provider: ProviderId,
    options: Pick<RunOptions, 'openaiBaseUrl' | 'scenario'>,
    secrets: RequestSecrets,
  ): Promise<ResolvedProvider> {
    const resolved = resolveProvider(provider, options, secrets, this.deps.providerDefaults);
    if (resolved.openaiUserUrl && resolved.openaiBaseUrl && this.deps.network) {
      await resolveAllowed(this.deps.network, new URL(resolved.openaiBaseUrl).hostname).catch(
        (error: unknown) => {
          if (error instanceof AppError) throw error;
        },
      );
    }
    return resolved;
  }

  /**
   * Runs `setRunning` (which makes one of the user's runs running) only while the user has
   * fewer than the maximum active — running or paused — other than `ownRunId`, the paused run
   * being resumed. Counting and writing hold the user's lock, so simultaneous
   * starts cannot all pass the count.
   */
  private withRunningSlot<T>(userId: string, setRunning: () => Promise<T>, ownRunId?: string): Promise<T> {
    return this.userLocks.run(userId, async () => {
      if ((await countActiveForUser(this.deps.db, userId, ownRunId)) >= this.maxRunningPerUser) {
        throw new AppError('TOO_MANY_PIPELINES', 'Maximum concurrent pipelines reached');
      }
      return setRunning();
    });
  }

  /** Stops every run of this process (shutdown): aborted and paused as interrupted, to be retried. */
  shutdown(): Promise<void> {
    return this.runs.shutdown();
  }

  /** Resolves when no run of this process is executing and no cleanup is pending (tests, benchmarks). */
  idle(): Promise<void> {
    return this.runs.idle();
  }

  get activeCount(): number {
    return this.runs.activeCount;
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
