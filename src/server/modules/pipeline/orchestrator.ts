import {
  AGENT_CONFIGS,
  MAX_RETRIES,
  type ProviderId,
  type RequestChangesInput,
  type RunOptions,
} from '@/contracts/pipeline.js';
import { agentOfPhase, isActiveRun, type RunCursor, retryCostsAttempt } from '@/contracts/run-lifecycle.js';
import { isUniqueViolation } from '@/server/lib/db-errors.js';
import { AppError } from '@/server/lib/errors.js';
import { Limiter } from '@/server/lib/limiter.js';
import { getOwnedTask } from '../tasks/tasks.js';
import { conflictsWithDefault } from '../workspace/update-branch.js';
import { type ApprovalEnv, approveRun, revertApproval } from './approval.js';
import { assertRetryWithinBudget } from './budget.js';
import { interruptedDetails } from './failures.js';
import type { OrchestratorDeps } from './pipeline-deps.js';
import {
  agentConfigsOf,
  type RequestSecrets,
  type ResolvedProvider,
  resolveAllowedProvider,
} from './provider-resolution.js';
import { commentsOfRun, markAddressed } from './review-comments.repo.js';
import { FIRST_CURSOR } from './run-context.js';
import { type ExecutionEnv, executeRun, releaseWorktree } from './run-execution.js';
import { RunRegistry } from './run-registry.js';
import { RunTransitions } from './run-transitions.js';
import { RunningSlots } from './running-slots.js';
import { latestRunOfTask, type RunRow, runningRuns, runWithProject, taskWithProject } from './runs.repo.js';

/**
 * Worktree setups at once. Each forks git several times; a burst of starts would otherwise fork
 * dozens of processes together and hold up every request sharing the event loop.
 */
const WORKTREE_SETUPS_AT_ONCE = 2;
/** A run's time limit by default (the seed's overall run timeout): past it the run is paused. */
export const DEFAULT_RUN_TIMEOUT_MS = 10 * 60_000;

/**
 * The pipeline's control plane: checks what a caller may do (ownership,
 * columns, one active run per task, the user's running slots), then asks `RunTransitions` for
 * the transition and hands runs to execute to the registry of runs in flight.
 */
export class Orchestrator {
  private readonly registry = new RunRegistry();
  private readonly transitions: RunTransitions;
  private readonly env: ExecutionEnv;
  private readonly backoffBaseMs: number;
  private readonly slots: RunningSlots;
  private readonly runTimeoutMs: number;
  private readonly approvals: ApprovalEnv;

  constructor(private readonly deps: OrchestratorDeps) {
    this.transitions = new RunTransitions(deps.db, deps.events, deps.now, deps.locks);
    this.env = {
      db: deps.db,
      transitions: this.transitions,
      logger: deps.logger,
      now: deps.now,
      dataDir: deps.dataDir,
      providers: deps.providers,
      sandbox: deps.sandbox,
      setups: new Limiter(WORKTREE_SETUPS_AT_ONCE),
      budgets: { repoMap: 20_000, files: 60_000, diff: 120_000 },
      ...(deps.maxAnswerBytes !== undefined ? { maxAnswerBytes: deps.maxAnswerBytes } : {}),
      ...(deps.locks ? { locks: deps.locks } : {}),
      ...(deps.engines ? { engines: deps.engines } : {}),
      ...(deps.depCache ? { depCache: deps.depCache } : {}),
    };
    this.backoffBaseMs = deps.backoffBaseMs ?? 1000;
    this.slots = new RunningSlots(deps.db, deps.maxRunningPerUser ?? 5);
    this.runTimeoutMs = deps.runTimeoutMs ?? DEFAULT_RUN_TIMEOUT_MS;
    this.approvals = { deps, transitions: this.transitions, execution: this.env };
  }

  /**
   * Validates, records the run, answers at once; the run goes on in the
   * background, after the answer (its worktree setup waits its turn).
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
    await this.assertEngine(taskId, provider);
    if (task.status !== 'backlog' && task.status !== 'spec') {
      throw new AppError(
        'INVALID_PIPELINE_STATE',
        'Pipeline can only start on tasks in Backlog or Spec status',
      );
    }
    // A run already active on the task is refused by the database (one active run per task): one query fewer.
    let row: RunRow;
    try {
      row = await this.transitions.start(
        { taskId, projectId: task.projectId },
        { provider, agentConfigs: agentConfigsOf(options), cursor: FIRST_CURSOR },
        this.slots.for(userId),
      );
    } catch (error) {
      if (isUniqueViolation(error)) throw pipelineActive();
      throw error;
    }
    this.launch(row, userId, resolved);
    this.deps.logger.info('pipeline started', { taskId, runId: row.id, provider });
    return { runId: row.id };
  }

  /** Stops a running or paused run in any phase, aborting the agent call in flight. */
  async cancel(userId: string, taskId: string): Promise<{ status: 'cancelled' }> {
    const task = await getOwnedTask(this.deps, userId, taskId);
    const run = await latestRunOfTask(this.deps.db, taskId);
    if (!run || !isActiveRun(run.status)) {
      throw new AppError('INVALID_PIPELINE_STATE', 'No active pipeline to cancel');
    }
    const stopped = this.registry.abort(taskId, run.id);
    const updated = await this.transitions.cancel({ runId: run.id, taskId, projectId: task.projectId });
    if (!updated) throw new AppError('INVALID_PIPELINE_STATE', 'No active pipeline to cancel');
    // The worktree goes once the aborted run has stopped touching it; idle() and shutdown() wait for this.
    // The repository is looked up now: the task may be deleted before the run has stopped.
    const repo = (await taskWithProject(this.deps.db, taskId))?.project;
    this.registry.track(stopped.then(() => releaseWorktree(this.env, updated, repo)));
    this.deps.logger.info('pipeline cancelled', { taskId, runId: run.id });
    return { status: 'cancelled' };
  }

  /**
   * Resumes a paused run at the failed phase and agent, after a backoff. A run its token budget
   * paused resumes at once, without spending a retry, once the budget covers its next call.
   */
  async retry(userId: string, taskId: string, options: RunOptions, secrets: RequestSecrets) {
    const task = await getOwnedTask(this.deps, userId, taskId);
    const run = await latestRunOfTask(this.deps.db, taskId);
    if (run?.status !== 'paused')
      throw new AppError('INVALID_PIPELINE_STATE', 'Only a paused pipeline can be retried');
    const cursor = run.cursor ?? FIRST_CURSOR;
    // A pause that is not the provider's doing (the token budget) costs no retry and waits no backoff.
    const costsAttempt = retryCostsAttempt(run.errorDetails?.type);
    if (costsAttempt && cursor.retryCount >= MAX_RETRIES) {
      throw new AppError('INVALID_PIPELINE_STATE', `This step was already retried ${MAX_RETRIES} times`);
    }
    const resolved = await this.resolve(run.provider, options, secrets);
    await this.assertEngine(taskId, run.provider);
    const retryCount = costsAttempt ? cursor.retryCount + 1 : cursor.retryCount;
    const configs = options.agents ? agentConfigsOf(options) : (run.agentConfigs ?? AGENT_CONFIGS);
    await assertRetryWithinBudget(this.deps.db, run, task.projectId, configs);
    const ref = { runId: run.id, taskId, projectId: task.projectId };
    const updated = await this.transitions.resume(
      ref,
      { ...cursor, retryCount },
      configs,
      this.slots.for(userId, run.id),
    );
    if (!updated) throw new AppError('INVALID_PIPELINE_STATE', 'Only a paused pipeline can be retried');
    const delay = costsAttempt ? this.backoffBaseMs * 2 ** (retryCount - 1) : 0;
    this.transitions.events.chunk(
      taskId,
      run.id,
      run.errorDetails?.failedAgent ?? agentOfPhase(cursor.phase),
      costsAttempt
        ? `\n[AutoCoder] Retrying in ${delay / 1000}s (retry ${retryCount}/${MAX_RETRIES})…\n`
        : "\n[AutoCoder] Resuming within the task's token budget…\n",
    );
    this.launch(updated, userId, resolved, delay);
    return { runId: run.id, retryCount, delayMs: delay };
  }

  /**
   * Back to coding with the person's feedback and open comments (task → building). When the
   * default branch conflicts with the branch, the run first merges it in and the coder resolves
   * the conflicts. Feedback may be empty when there are comments or conflicts.
   */
  async requestChanges(userId: string, taskId: string, input: RequestChangesInput, secrets: RequestSecrets) {
    const task = await getOwnedTask(this.deps, userId, taskId);
    const run = await latestRunOfTask(this.deps.db, taskId);
    const found = await taskWithProject(this.deps.db, taskId);
    if (run?.status !== 'passed' || task.status !== 'review' || !found) {
      throw new AppError('INVALID_PIPELINE_STATE', 'Changes can be requested only for a task in Review');
    }
    const resolved = await this.resolve(run.provider, input, secrets);
    await this.assertEngine(taskId, run.provider);
    const open = await commentsOfRun(this.deps.db, run.id, true);
    const conflicts = run.branch ? await conflictsWithDefault({ ...found.project, branch: run.branch }) : [];
    if (!input.feedback && open.length === 0 && conflicts.length === 0) {
      throw new AppError('VALIDATION_ERROR', 'Feedback is required', {
        fields: { feedback: ['Feedback is required when no comment is open'] },
      });
    }
    const iteration = run.iteration + 1;
    const comments = open.map(({ path, line, body }) => ({ path, line, body }));
    const cursor: RunCursor = {
      phase: 'coding',
      subtaskIndex: (run.subtasks ?? []).length,
      roundStart: iteration,
      retryCount: 0,
      ...(input.feedback ? { feedback: input.feedback } : {}),
      ...(comments.length ? { comments } : {}),
      ...(conflicts.length ? { resolveConflicts: true } : {}),
    };
    const feedback = input.feedback
      ? [...run.feedback, { text: input.feedback, at: this.deps.now(), iteration }]
      : run.feedback;
    const ref = { runId: run.id, taskId, projectId: task.projectId };
    const updated = await this.transitions.reopen(
      ref,
      { iteration, cursor, feedback },
      this.slots.for(userId),
    );
    if (!updated)
      throw new AppError('INVALID_PIPELINE_STATE', 'Changes can be requested only for a task in Review');
    await markAddressed(
      this.deps.db,
      run.id,
      open.map((c) => c.id),
      new Date(this.deps.now()),
    );
    this.launch(updated, userId, resolved);
    return { runId: run.id, iteration, comments: comments.length, conflicts };
  }

  /** Approves a passed run in Review: merged into the default branch, confirmed by git, then done. */
  approve(userId: string, taskId: string) {
    return approveRun(this.approvals, userId, taskId);
  }

  /** Takes back the task's last approval with a revert commit; the task goes back to Review. */
  revert(userId: string, taskId: string) {
    return revertApproval(this.approvals, userId, taskId);
  }

  /** The task is being deleted: its runs' file locks (a run in Review holds them) are released. */
  async releaseLocksOfTask(taskId: string, projectId: string): Promise<void> {
    await this.deps.locks?.releaseTask(taskId, projectId);
  }

  /**
   * At start-up: runs a previous process left running are paused with a retryable error of
   * type `interrupted`; Retry resumes each at its saved cursor, on its branch, with its commits.
   */
  async recoverInterrupted(): Promise<number> {
    const stale = await runningRuns(this.deps.db);
    for (const { run, projectId } of stale) {
      await this.pauseInterrupted(run, projectId, 'The server stopped while this run was in progress');
    }
    if (stale.length) this.deps.logger.warn('paused interrupted runs', { count: stale.length });
    return stale.length;
  }

  /** Stops every run of this process (shutdown): aborted and paused as interrupted, to be retried. */
  async shutdown(): Promise<void> {
    for (const handle of await this.registry.stopAll()) {
      // The project comes with the run from the database: a run stopped before it read its task still has one.
      const found = await runWithProject(this.deps.db, handle.runId);
      if (found?.run.status === 'running')
        await this.pauseInterrupted(found.run, found.projectId, 'The server was stopped during this run');
    }
  }

  /** Resolves when no run of this process is executing and no cleanup is pending (tests, benchmarks). */
  idle(): Promise<void> {
    return this.registry.idle();
  }

  get activeCount(): number {
    return this.registry.activeCount;
  }

  /** A run this process can no longer carry on; its worktree, branch and commits stay for Retry. */
  private pauseInterrupted(run: RunRow, projectId: string, reason: string) {
    const ref = { runId: run.id, taskId: run.taskId, projectId };
    const cursor = run.cursor ?? FIRST_CURSOR;
    return this.transitions.pause(
      ref,
      interruptedDetails({ cursor, branch: run.branch }, reason, this.deps.now()),
    );
  }

  /** Executes the run in the background (after `delayMs`), registered as in flight until it stops. */
  private launch(row: RunRow, userId: string, resolved: ResolvedProvider, delayMs = 0) {
    this.registry.launch(
      { runId: row.id, taskId: row.taskId },
      (handle) => executeRun(this.env, handle, row, { userId, resolved }),
      { delayMs, timeoutMs: this.runTimeoutMs },
    );
  }

  /**
   * A run whose coder engine (the task's, else the project's) cannot run here, or does not speak
   * the provider's API, is refused at once: 400 ENGINE_UNAVAILABLE with the reason and how to install.
   */
  private async assertEngine(taskId: string, provider: ProviderId) {
    const found = await taskWithProject(this.deps.db, taskId);
    if (!found) return;
    const engine = found.task.coderEngine ?? found.project.coderEngine;
    if (engine !== 'claude-code' && engine !== 'codex') return;
    if (!this.deps.engines) {
      throw new AppError('ENGINE_UNAVAILABLE', 'External coder engines are not enabled on this server');
    }
    await this.deps.engines.assertUsable(engine, provider);
  }

  private resolve(
    provider: ProviderId,
    options: Pick<RunOptions, 'openaiBaseUrl' | 'scenario'>,
    secrets: RequestSecrets,
  ): Promise<ResolvedProvider> {
    return resolveAllowedProvider(provider, options, secrets, this.deps.providerDefaults, this.deps.network);
  }
}

const pipelineActive = () => new AppError('PIPELINE_ACTIVE', 'A pipeline is already running for this task');
