import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import type {
  AgentCallUsage,
  AgentConfig,
  AgentType,
  ErrorDetails,
  FileChanges,
  PipelinePhase,
  PipelineStatus,
  ProviderId,
  ReviewResult,
  Subtask,
  TokenUsage,
} from '@/contracts/pipeline.js';
import type { CoderEngineId } from '@/contracts/projects.js';
import type { RunCursor } from '@/contracts/run-lifecycle.js';

/** Tokens and estimated cost. */
type UsageTotals = TokenUsage & { costUsd: number };
/** What each agent answered, one entry per call, by agent. */
type AgentLogs = Partial<Record<AgentType, string[]>>;
/** One request for changes: the person's words, when, and the iteration it opened. */
export interface FeedbackEntry {
  text: string;
  at: number;
  iteration: number;
}

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
const updatedAt = () => timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

export const users = pgTable('users', {
  id: uuid('id').primaryKey().defaultRandom(),
  email: text('email').notNull().unique(),
  passwordHash: text('password_hash').notNull(),
  createdAt: createdAt(),
});

/** A login session. `id` is the SHA-256 of the cookie's token, so a leaked table grants no session. */
export const sessions = pgTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [index('sessions_user_idx').on(table.userId)],
);

export const projects = pgTable(
  'projects',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** Where the repository came from (a network URL, never a server path); null for a new one. */
    repoUrl: text('repo_url'),
    /** The project's main checkout, inside the data dir. */
    repoPath: text('repo_path').notNull(),
    defaultBranch: text('default_branch').notNull().default('main'),
    /** The repository's own check, run with `sh -c` in a run's worktree; null: none. */
    checkCommand: text('check_command'),
    checkTimeoutSeconds: integer('check_timeout_seconds').notNull().default(300),
    /** Run with `sh -c` in every new worktree before its first check, service or coder step; null: none. */
    setupCommand: text('setup_command'),
    setupTimeoutSeconds: integer('setup_timeout_seconds').notNull().default(600),
    /** Environment variables of the project's services (issue 10): the owner's own values. */
    serviceEnv: jsonb('service_env').$type<Record<string, string>>().notNull().default(sql`'{}'::jsonb`),
    /**
     * Hosts the project's sandboxes may reach, within the operator's AUTOCODER_SANDBOX_ALLOWED_HOSTS
     * (canonical entries); null: the operator's whole list.
     */
    sandboxAllowedHosts: jsonb('sandbox_allowed_hosts').$type<string[]>(),
    /** Tokens (input + output, all runs) each task may spend; null: no budget. */
    taskTokenBudget: integer('task_token_budget'),
    /** How the coder does its step: 'autocoder' (the tool loop) or 'one-shot'. */
    coderEngine: text('coder_engine').$type<CoderEngineId>().notNull().default('autocoder'),
    /** Tool calls one agent step may make. */
    maxToolCalls: integer('max_tool_calls').notNull().default(60),
    /**
     * Bumped by triggers on every write to the project's tasks and to their runs' card fields
     * (drizzle/0002): the board list's ETag, read with one indexed lookup.
     */
    tasksVersion: bigint('tasks_version', { mode: 'number' }).notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    index('projects_user_idx').on(table.userId, table.createdAt),
    check('projects_check_command_length', sql`char_length(${table.checkCommand}) <= 1000`),
    check('projects_check_timeout_range', sql`${table.checkTimeoutSeconds} between 10 and 3600`),
    check('projects_setup_command_length', sql`char_length(${table.setupCommand}) <= 1000`),
    check('projects_setup_timeout_range', sql`${table.setupTimeoutSeconds} between 10 and 3600`),
    check('projects_task_token_budget_positive', sql`${table.taskTokenBudget} >= 1`),
    check('projects_max_tool_calls_range', sql`${table.maxToolCalls} between 1 and 500`),
  ],
);

export const tasks = pgTable(
  'tasks',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    category: text('category').notNull().default('feature'),
    priority: text('priority').notNull().default('medium'),
    status: text('status').notNull().default('backlog'),
    /** Orders cards within a column; fractional so a move writes one row. */
    position: doublePrecision('position').notNull().default(0),
    subtasks: jsonb('subtasks').$type<Subtask[]>(),
    /** The coder engine of this task's runs, overriding the project's; null: the project's. */
    coderEngine: text('coder_engine').$type<CoderEngineId>(),
    /** Not read or written since the run's state moved to `pipeline_runs`; kept only so no migration drops data. */
    pipelineState: jsonb('pipeline_state').$type<Record<string, unknown>>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [index('tasks_project_status_position_idx').on(table.projectId, table.status, table.position)],
);

/** One execution of the pipeline for a task: phase, status, agents' output, branch, commits and usage. */
export const pipelineRuns = pgTable(
  'pipeline_runs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    taskId: uuid('task_id')
      .notNull()
      .references(() => tasks.id, { onDelete: 'cascade' }),
    phase: text('phase').$type<PipelinePhase>().notNull().default('planning'),
    iteration: integer('iteration').notNull().default(0),
    status: text('status').$type<PipelineStatus>().notNull().default('running'),
    agentLogs: jsonb('agent_logs')
      .$type<AgentLogs>()
      .default(sql`'{"planner":[],"coder":[],"reviewer":[]}'::jsonb`),
    fileChanges: jsonb('file_changes').$type<FileChanges>().default(sql`'{"files":[]}'::jsonb`),
    reviewFindings: jsonb('review_findings').$type<ReviewResult>(),
    errorDetails: jsonb('error_details').$type<ErrorDetails>(),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    completedAt: timestamp('completed_at', { withTimezone: true, mode: 'date' }),
    /** anthropic | openai | simulator — never the key. */
    provider: text('provider').$type<ProviderId>().notNull().default('anthropic'),
    /** Models and token limits per agent, as chosen at start. */
    agentConfigs: jsonb('agent_configs').$type<Record<AgentType, AgentConfig>>(),
    /** The plan: subtasks in order. */
    subtasks: jsonb('subtasks').$type<Subtask[]>(),
    /** Where the run stands inside its phase, so retry resumes at the failed agent call. */
    cursor: jsonb('cursor').$type<RunCursor>(),
    /** The person's feedback, one entry per request for changes. */
    feedback: jsonb('feedback').$type<FeedbackEntry[]>().notNull().default(sql`'[]'::jsonb`),
    branch: text('branch'),
    worktreePath: text('worktree_path'),
    baseCommit: text('base_commit'),
    headCommit: text('head_commit'),
    /** The default branch's commit after the approval: a merge commit, or the branch head (fast-forward). */
    mergeCommit: text('merge_commit'),
    /** The default branch's commit before the approval: reverting it takes back `merged_onto..merge_commit`. */
    mergedOnto: text('merged_onto'),
    /** The commit that reverted the last approval; the next approval undoes it first. */
    revertCommit: text('revert_commit'),
    inputTokens: integer('input_tokens').notNull().default(0),
    outputTokens: integer('output_tokens').notNull().default(0),
    costUsd: doublePrecision('cost_usd').notNull().default(0),
    /**
     * What the task's earlier runs had spent when this one was created: only a task's latest run
     * spends, so it stays true, and a budget check adds this run's own usage to it.
     */
    earlierUsage: jsonb('earlier_usage')
      .$type<UsageTotals>()
      .notNull()
      .default(sql`'{"inputTokens":0,"outputTokens":0,"costUsd":0}'::jsonb`),
    /** One entry per agent call: agent, model, tokens, cost, duration. */
    calls: jsonb('calls').$type<AgentCallUsage[]>().notNull().default(sql`'[]'::jsonb`),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [
    index('pipeline_runs_task_started_idx').on(table.taskId, table.startedAt.desc()),
    // At most one active (running or paused) run per task, held by the database too.
    uniqueIndex('pipeline_runs_one_active_per_task')
      .on(table.taskId)
      .where(sql`status in ('running', 'paused')`),
  ],
);

/**
 * Every event of every stream (a task's, a project's), in order. `seq` is the SSE id:
 * monotonic within its stream. Agent-log chunks arrive here in batches.
 */
export const events = pgTable(
  'events',
  {
    stream: text('stream').notNull(),
    seq: bigint('seq', { mode: 'number' }).notNull(),
    runId: uuid('run_id'),
    type: text('type').notNull(),
    data: jsonb('data').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.stream, table.seq] }),
    index('events_run_idx').on(table.runId, table.seq),
  ],
);

/** A person's comment on a line of a run's diff; sent to the coder by the next request for changes. */
export const reviewComments = pgTable(
  'review_comments',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    runId: uuid('run_id')
      .notNull()
      .references(() => pipelineRuns.id, { onDelete: 'cascade' }),
    path: text('path').notNull(),
    line: integer('line').notNull(),
    body: text('body').notNull(),
    createdAt: createdAt(),
    /** When a request for changes sent it to the coder; null while open. */
    addressedAt: timestamp('addressed_at', { withTimezone: true, mode: 'date' }),
  },
  (table) => [
    index('review_comments_run_idx').on(table.runId, table.createdAt),
    check('review_comments_body_length', sql`char_length(${table.body}) between 1 and 4000`),
    check('review_comments_line_positive', sql`${table.line} >= 1`),
  ],
);

/**
 * An agent's identity (issue 9): a bearer token its user created. `tokenHash` is the SHA-256 of
 * the token, which is shown once and never stored.
 */
export const agentTokens = pgTable(
  'agent_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    tokenHash: text('token_hash').notNull().unique(),
    createdAt: createdAt(),
  },
  (table) => [index('agent_tokens_user_idx').on(table.userId, table.createdAt)],
);

/**
 * A file lock a pipeline run holds (docs/coordination.md): written when the run takes it, deleted
 * when the run releases its locks (cancel, failure, approval) or with the run. At start-up the
 * locks of runs still holding them (in Review, or paused) are taken again from these rows, so a
 * restart does not free files a run keeps through Review. `takenAt` (ms) bounds them by
 * RUN_LOCK_TTL_MS as in the store.
 */
export const runLocks = pgTable(
  'run_locks',
  {
    runId: uuid('run_id')
      .notNull()
      .references(() => pipelineRuns.id, { onDelete: 'cascade' }),
    path: text('path').notNull(),
    /** The lock store's scope: the project's default branch when the lock was taken. */
    branch: text('branch').notNull(),
    /** The holder's name: the task's title when the lock was taken. */
    holderName: text('holder_name').notNull(),
    message: text('message').notNull(),
    takenAt: bigint('taken_at', { mode: 'number' }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.runId, table.path] })],
);

/**
 * A checkout services run in (issue 10, seed 002's "session"): the project's own (run_id null)
 * or a run's worktree. The row gives the checkout a ULID that stays the same across restarts;
 * whether the checkout still exists is asked of the disk.
 */
export const workspaces = pgTable(
  'workspaces',
  {
    id: text('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    runId: uuid('run_id').references(() => pipelineRuns.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex('workspaces_one_per_project').on(table.projectId).where(sql`run_id is null`),
    uniqueIndex('workspaces_one_per_run').on(table.runId),
    check('workspaces_id_ulid', sql`${table.id} ~ '^[0-9A-HJKMNP-TV-Z]{26}$'`),
  ],
);

export const schema = {
  users,
  sessions,
  projects,
  tasks,
  pipelineRuns,
  events,
  agentTokens,
  reviewComments,
  workspaces,
  runLocks,
};
