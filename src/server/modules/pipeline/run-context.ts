import type { AgentConfig, AgentType, FileChange, ReviewResult, Subtask } from '@/contracts/pipeline.js';
import { AGENT_CONFIGS } from '@/contracts/pipeline.js';
import type { CoderEngineId } from '@/contracts/projects.js';
import type { CheckOutcome, RunCursor } from '@/contracts/run-lifecycle.js';
import type { Db } from '@/server/db/client.js';
import type { Logger } from '@/server/lib/logger.js';
import type { CheckSandbox, CheckSettings } from '../checks/check-runner.js';
import type { RunLocks } from '../coordination/run-locks.js';
import type { EngineCredentials } from '../engines/engine-target.js';
import type { ExternalEngines } from '../engines/external-engines.js';
import type { LlmProvider } from '../llm/provider.js';
import type { DepCache } from '../setup/dep-cache.js';
import { branchName } from '../workspace/branch-name.js';
import type { TaskContext } from './prompts/task-context.js';
import type { RunHandle } from './run-registry.js';
import type { RunRef, RunTransitions } from './run-transitions.js';
import type { RunRow, taskWithProject } from './runs.repo.js';

/** What the driver works with besides the run: the database, transitions, clock and budgets. */
export interface DriverEnv {
  db: Db;
  transitions: RunTransitions;
  logger: Logger;
  now: () => number;
  /** Character budgets for what agents are shown. */
  budgets: { repoMap: number; files: number; diff: number };
  /** Largest agent answer accepted, in bytes. */
  maxAnswerBytes?: number;
  /** Where the repository's check runs (every process running repository code goes through it). */
  sandbox: CheckSandbox;
  /** File locks taken before a coder's changes are applied; none without them. */
  locks?: RunLocks;
  /** The person's coding agents (Claude Code, Codex) as coder engines; none without them. */
  engines?: ExternalEngines;
  /** Installed results of worktree setups, by the lockfiles' content; none: every setup installs. */
  depCache?: DepCache;
}

/** Everything the driver needs for one run, in memory while it executes; built whole by `buildRunContext`. */
export interface RunContext extends RunRef {
  userId: string;
  task: TaskContext;
  repoPath: string;
  defaultBranch: string;
  /** The project's check, run once the subtasks are coded and after every fix; null: the project has none. */
  check: CheckSettings | null;
  /** The project's setup command, run in the worktree before its first step; null: none. */
  setup: { command: string; timeoutSeconds: number } | null;
  /** What the setup made at the worktree's top level (`node_modules`): never committed. */
  setupPaths: string[];
  worktreePath: string;
  branch: string;
  baseCommit: string | null;
  headCommit: string | null;
  provider: LlmProvider;
  /** What the run resolved for its provider (keys in memory only), for an external coder engine. */
  credentials: EngineCredentials;
  configs: Record<AgentType, AgentConfig>;
  /** How the coder does its steps (the task's choice, else the project's); `autocoder` gives planner and reviewer the read-only tools too. */
  coderEngine: CoderEngineId;
  /** Tool calls one agent step may make. */
  maxToolCalls: number;
  /** The project's network allow-list for sandboxed processes (null: the operator's). */
  allowedHosts: readonly string[] | null;
  cursor: RunCursor;
  iteration: number;
  subtasks: Subtask[];
  fileChanges: FileChange[];
  review: ReviewResult | null;
  /** Feedback of the latest request for changes, shown to the reviewer too. */
  lastFeedback: string | undefined;
  /** The run in this process's registry: its abort signal and whether it was cancelled. */
  handle: RunHandle;
  /** Fields to write with the run's next update (folded in to save a write). */
  pendingPatch?: { branch: string; worktreePath: string; baseCommit: string | null } | undefined;
  /**
   * Set by a coder step whose last tool call to the check passed with no change to the worktree
   * after it: the gate after the step takes that result instead of running the check again.
   */
  checkedTree?: CheckOutcome | undefined;
  /** Token totals of the run. */
  usage: { inputTokens: number; outputTokens: number; costUsd: number };
  /** Tokens the task's earlier runs spent (for its token budget). */
  earlierTokens: number;
}

/** The cursor of a run that has none stored: the start of planning. */
export const FIRST_CURSOR: RunCursor = { phase: 'planning', subtaskIndex: 0, roundStart: 0, retryCount: 0 };

/** A run's context from its row and its task and project, as just read from the database. */
export function buildRunContext(
  row: RunRow,
  found: NonNullable<Awaited<ReturnType<typeof taskWithProject>>>,
  run: {
    userId: string;
    handle: RunHandle;
    provider: LlmProvider;
    credentials: EngineCredentials;
    worktreePath: string;
  },
): RunContext {
  const cursor = row.cursor ?? FIRST_CURSOR;
  return {
    runId: row.id,
    taskId: row.taskId,
    projectId: found.project.id,
    userId: run.userId,
    task: { title: found.task.title, description: found.task.description, category: found.task.category },
    repoPath: found.project.repoPath,
    defaultBranch: found.project.defaultBranch,
    check: found.project.checkCommand
      ? {
          command: found.project.checkCommand,
          timeoutSeconds: found.project.checkTimeoutSeconds,
          allowedHosts: found.project.sandboxAllowedHosts ?? null,
        }
      : null,
    setup: found.project.setupCommand
      ? { command: found.project.setupCommand, timeoutSeconds: found.project.setupTimeoutSeconds }
      : null,
    setupPaths: cursor.setup?.paths ?? [],
    worktreePath: row.worktreePath ?? run.worktreePath,
    branch: row.branch ?? branchName(found.task.title, row.id.slice(0, 8)),
    baseCommit: row.baseCommit,
    headCommit: row.headCommit,
    provider: run.provider,
    credentials: run.credentials,
    configs: row.agentConfigs ?? AGENT_CONFIGS,
    coderEngine: found.task.coderEngine ?? found.project.coderEngine,
    maxToolCalls: found.project.maxToolCalls,
    allowedHosts: found.project.sandboxAllowedHosts ?? null,
    cursor,
    iteration: row.iteration,
    subtasks: row.subtasks ?? [],
    fileChanges: row.fileChanges?.files ?? [],
    review: row.reviewFindings ?? null,
    lastFeedback: cursor.feedback ?? row.feedback.at(-1)?.text,
    handle: run.handle,
    usage: { inputTokens: row.inputTokens, outputTokens: row.outputTokens, costUsd: row.costUsd },
    earlierTokens: row.earlierUsage.inputTokens + row.earlierUsage.outputTokens,
  };
}

/** Merges a batch of changes into the run's list: the latest action per path wins. */
export function mergeFileChanges(previous: FileChange[], next: FileChange[]): FileChange[] {
  const byPath = new Map(previous.map((change) => [change.filePath, change]));
  for (const change of next) byPath.set(change.filePath, change);
  return [...byPath.values()];
}
