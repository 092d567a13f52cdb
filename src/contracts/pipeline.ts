// biome-ignore-all lint/style/noExcessiveLinesPerFile: the one contract of a run and its events, shared by server and web; its parts change together.
import { z } from 'zod';
import { cleanString, rawString } from './common.js';
import type { CoordinationEvent } from './coordination.js';
import type { HeadMovedEvent } from './graph.js';
import type { TaskStatus } from './task-status.js';

/** The phase a run is in, or how it ended. */
export const PIPELINE_PHASES = [
  'planning',
  'coding',
  'reviewing',
  'fixing',
  'completed',
  'failed',
  'cancelled',
  'paused',
] as const;
export type PipelinePhase = (typeof PIPELINE_PHASES)[number];
/** Phases in which agents work (the ones a run can fail or pause in). */
export const ACTIVE_PHASES = ['planning', 'coding', 'reviewing', 'fixing'] as const;
export type ActivePhase = (typeof ACTIVE_PHASES)[number];

export const PIPELINE_STATUSES = ['running', 'passed', 'failed', 'cancelled', 'paused'] as const;
export type PipelineStatus = (typeof PIPELINE_STATUSES)[number];

export const AGENT_TYPES = ['planner', 'coder', 'reviewer'] as const;
export type AgentType = (typeof AGENT_TYPES)[number];

/** Reviews in one round before a run fails (the first and two after auto-fixes). */
export const MAX_ITERATIONS = 3;
/**
 * Retries a person may ask for after failed steps, per run (counted from zero again after a change
 * request); a failure after the last one ends the run.
 */
export const MAX_RETRIES = 3;
/** A review passes when the reviewer says so and scores at least this. */
export const PASS_SCORE = 70;

// ---- Agent outputs (untrusted: validated before use) ----------------------------------------

export const subtaskSchema = z.object({
  id: cleanString().min(1).max(100),
  title: cleanString().min(1).max(200),
  description: rawString().min(1).max(10_000),
  order: z.number().int().min(1),
  /** Files the subtask expects to touch (optional hint; used for context and, later, locks). */
  files: z.array(cleanString().min(1).max(500)).max(50).optional(),
});
export const subtaskListSchema = z.object({ subtasks: z.array(subtaskSchema).min(1).max(10) });

/** What a change did to a file, as a run records and shows it. */
export const FILE_ACTIONS = ['create', 'modify', 'delete'] as const;
/** One search/replace block of an `edit` answer: `search` must occur exactly once in the file. */
export const searchReplaceSchema = z.object({
  search: rawString().min(1).max(100_000),
  replace: rawString().max(100_000),
});
const wholeFileChangeSchema = z.object({
  filePath: cleanString().min(1).max(500),
  language: cleanString().min(1).max(50),
  content: rawString().max(1_000_000),
  action: z.enum(FILE_ACTIONS),
});
/**
 * A coder's change to one file: complete content (`create`, `modify`) or `delete`, or
 * `action: "edit"` with search/replace blocks applied in order to the file as it is (no content).
 * An edit parses as a `modify` carrying its `edits` and an empty `content`; applying it
 * (`applyFileChanges`) gives the change as recorded, a `modify` with the file's resulting content.
 */
export const fileChangeSchema = z.union([
  wholeFileChangeSchema,
  z
    .object({
      filePath: wholeFileChangeSchema.shape.filePath,
      language: wholeFileChangeSchema.shape.language,
      action: z.literal('edit'),
      edits: z.array(searchReplaceSchema).min(1).max(100),
    })
    .transform(({ filePath, language, edits }) => ({
      filePath,
      language,
      content: '',
      action: 'modify' as const,
      edits,
    })),
]);
export const fileChangesSchema = z.object({ files: z.array(fileChangeSchema).max(100) });

export const FINDING_SEVERITIES = ['error', 'warning', 'info'] as const;
export const findingSchema = z.object({
  severity: z.enum(FINDING_SEVERITIES),
  file: cleanString().min(1).max(500),
  line: z.number().int().min(0),
  message: rawString().min(1).max(5_000),
});
export const reviewResultSchema = z.object({
  passed: z.boolean(),
  score: z.number().min(0).max(100),
  findings: z.array(findingSchema).max(200),
});

export type Subtask = z.infer<typeof subtaskSchema>;
export type SubtaskList = z.infer<typeof subtaskListSchema>;
export type FileAction = (typeof FILE_ACTIONS)[number];
export type FileChange = z.infer<typeof fileChangeSchema>;
export type FileChanges = z.infer<typeof fileChangesSchema>;
export type FindingSeverity = (typeof FINDING_SEVERITIES)[number];
export type ReviewFinding = z.infer<typeof findingSchema>;
export type ReviewResult = z.infer<typeof reviewResultSchema>;

// ---- Errors -----------------------------------------------------------------------------------

export const ERROR_TYPES = [
  'api_error',
  'parse_error',
  'timeout',
  'unknown',
  'answer_too_large',
  'interrupted',
  /** The run worked longer than the server's limit (AUTOCODER_RUN_TIMEOUT_MS). */
  'run_timeout',
  /** Another agent kept writing a file the coder changed for longer than LOCK_WAIT_SECONDS. */
  'lock_conflict',
  /** The next provider call could pass the task's token budget (the project's `taskTokenBudget`), so it was not made. */
  'budget_exceeded',
  /** A check (or service) left a nested git repository in the worktree: the run stops, nothing of it committed. */
  'nested_repository',
  /**
   * The agent's tool loop went nowhere: 5 bad tool calls in a row, or the step's `maxToolCalls`
   * spent without finishing. Retry runs the step again from the run's last commit.
   */
  'agent_stuck',
  /**
   * An external coding agent (Claude Code, Codex) ended in an error of its own: it crashed, could
   * not start, or stopped with an error result. Its message is shown with secrets removed.
   */
  'engine_failed',
  /** The project's setup command (`setupCommand`) failed in the run's worktree; Retry runs it again. */
  'setup_failed',
] as const;
export type PipelineErrorType = (typeof ERROR_TYPES)[number];

export const errorDetailsSchema = z.object({
  type: z.enum(ERROR_TYPES),
  message: z.string(),
  statusCode: z.number().int().optional(),
  failedAgent: z.enum(AGENT_TYPES).optional(),
  failedPhase: z.enum(ACTIVE_PHASES).optional(),
  retryable: z.boolean().default(true),
  retryCount: z.number().int().min(0).default(0),
  maxRetries: z.number().int().default(MAX_RETRIES),
  timestamp: z.number(),
  /** For `budget_exceeded`: what the task had spent, its budget, and the worst case of the call that was not made. */
  budget: z
    .object({
      spentTokens: z.number().int(),
      budgetTokens: z.number().int(),
      /** The call's estimated input tokens (see `pipeline/budget.ts`). */
      callInputTokens: z.number().int(),
      /** The call's answer-token limit (its agent's `maxTokens`). */
      callMaxOutputTokens: z.number().int(),
    })
    .optional(),
});
export type ErrorDetails = z.infer<typeof errorDetailsSchema>;

// ---- Providers and settings ---------------------------------------------------------------------

export const PROVIDERS = ['anthropic', 'openai', 'simulator'] as const;
export type ProviderId = (typeof PROVIDERS)[number];

export const PROVIDER_LABELS: Record<ProviderId, string> = {
  anthropic: 'Anthropic (Claude)',
  openai: 'OpenAI-compatible (Ollama, vLLM, LM Studio…)',
  simulator: 'Simulated agents (offline demo)',
};

export interface AgentConfig {
  model: string;
  maxTokens: number;
}

/** Each agent's model and answer-token limit when the user has not chosen otherwise. */
export const AGENT_CONFIGS: Record<AgentType, AgentConfig> = {
  planner: { model: 'claude-sonnet-4-20250514', maxTokens: 4096 },
  coder: { model: 'claude-sonnet-4-20250514', maxTokens: 8192 },
  reviewer: { model: 'claude-sonnet-4-20250514', maxTokens: 4096 },
};

const agentConfigSchema = z.strictObject({
  model: cleanString().min(1).max(200),
  maxTokens: z.number().int().min(256).max(64_000),
});

/** Body of start / retry / request-changes: which provider and models to use. Keys travel in headers. */
export const runOptionsSchema = z.strictObject({
  provider: z.enum(PROVIDERS).optional(),
  agents: z
    .strictObject({
      planner: agentConfigSchema.optional(),
      coder: agentConfigSchema.optional(),
      reviewer: agentConfigSchema.optional(),
    })
    .optional(),
  /** OpenAI-compatible endpoint (provider "openai"); its key travels in `x-openai-key`. */
  openaiBaseUrl: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .optional(),
  /** Simulator directives (provider "simulator"), e.g. "review-fails=2,error=429@coder". */
  scenario: cleanString().max(500).optional(),
});
export type RunOptions = z.infer<typeof runOptionsSchema>;

/**
 * Feedback may be empty when the run has open comments on its lines, or when the default
 * branch conflicts with the task branch (the request then only brings the branch up to date).
 */
export const requestChangesSchema = runOptionsSchema.extend({
  feedback: cleanString().max(5000, 'Feedback must be at most 5,000 characters').default(''),
});
export type RequestChangesInput = z.infer<typeof requestChangesSchema>;

/** 202 of POST /api/pipeline/:taskId/retry. */
export interface RetryResponse {
  runId: string;
  retryCount: number;
  /** The backoff before the failed call is made again. */
  delayMs: number;
}

/** 200 of POST /api/pipeline/:taskId/approve. */
export interface ApproveResponse {
  status: 'done';
  mergeCommit: string | null;
  /** True when the default branch simply moved to the run's head (no merge commit). */
  fastForward: boolean;
  branch: string | null;
}

/** 200 of POST /api/pipeline/:taskId/revert. */
export interface RevertResponse {
  status: 'review';
  revertCommit: string | null;
  branch: string | null;
}

/** 202 of POST /api/pipeline/:taskId/request-changes. */
export interface RequestChangesResponse {
  runId: string;
  iteration: number;
  /** Open line comments sent to the coder. */
  comments: number;
  /** Files of the default branch that conflict with the run's; the coder resolves them. */
  conflicts: string[];
}

/** Anthropic keys look like `sk-ant-…`; anything else is refused before a call. */
export const ANTHROPIC_KEY_PATTERN = /^sk-ant-[A-Za-z0-9_-]{8,200}$/;

// ---- Usage ----------------------------------------------------------------------------------------

/**
 * Tokens of a call or a run. `inputTokens` counts every input token the provider processed, the
 * cached ones included; `cacheReadTokens` and `cacheWriteTokens` say how many of them were read
 * from or written to the provider's prompt cache (priced apart).
 */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

export interface AgentCallUsage extends TokenUsage {
  agent: AgentType;
  model: string;
  /** Estimated cost in US dollars; 0 for the simulator and unknown models. */
  costUsd: number;
  durationMs: number;
  /** Tool calls the agent made in this step (the tool loop; absent for one answer). */
  toolCalls?: number;
  /** Provider calls (turns) the step took. */
  turns?: number;
}

// ---- Runs as the API shows them ------------------------------------------------------------------

export interface PipelineRunSummary {
  id: string;
  taskId: string;
  phase: PipelinePhase;
  status: PipelineStatus;
  iteration: number;
  provider: ProviderId;
  /** True for the offline simulator: its output is not AI. */
  simulated: boolean;
  branch: string | null;
  baseCommit: string | null;
  headCommit: string | null;
  /** The default branch's commit after the approval (a merge commit, or the branch head when fast-forwarded). */
  mergeCommit: string | null;
  /** The commit that reverted the last approval, until the next one. */
  revertCommit: string | null;
  /** The subtask being coded (coding phase), for "Coding 2/3" on a card. */
  subtask: { index: number; total: number } | null;
  /** Iteration at which the current round of automatic fixes began (0, or a request for changes). */
  roundStart: number;
  usage: TokenUsage & { costUsd: number };
  /**
   * What the task's earlier runs spent, fixed when this run was created (only a task's latest run
   * can spend): with `usage`, the task's spend against its project's `taskTokenBudget`.
   */
  earlierRunsUsage: TokenUsage & { costUsd: number };
  reviewScore: number | null;
  errorDetails: ErrorDetails | null;
  startedAt: string;
  completedAt: string | null;
}

export interface PipelineRunDetail extends PipelineRunSummary {
  subtasks: Subtask[];
  fileChanges: FileChanges;
  reviewFindings: ReviewResult | null;
  calls: AgentCallUsage[];
  agentLogCounts: Record<AgentType, number>;
}

// ---- Events (SSE) ----------------------------------------------------------------------------------

export interface AgentLogData {
  runId: string;
  agent: AgentType;
  chunk: string;
  timestamp: number;
}
export interface PhaseChangeData {
  runId: string;
  phase: PipelinePhase;
  status: PipelineStatus;
  iteration: number;
  /** The subtask being coded, when in coding. */
  subtask?: { index: number; total: number; title: string };
  timestamp: number;
}
export interface TaskStatusData {
  taskId: string;
  newStatus: TaskStatus;
  timestamp: number;
}
export interface ErrorEventData extends ErrorDetails {
  runId: string;
}
export interface PipelineCompleteData {
  runId: string;
  taskId: string;
  result: 'passed' | 'failed';
  fileChanges?: FileChanges;
  reviewFindings?: ReviewResult;
  timestamp: number;
}
export interface UsageData {
  runId: string;
  call: AgentCallUsage;
  total: TokenUsage & { costUsd: number };
  timestamp: number;
}
export interface TimeoutData {
  message: string;
  timestamp: number;
}
/** A piece of the output of the repository's own check (the project's `checkCommand`). */
export interface CheckLogData {
  runId: string;
  stream: 'stdout' | 'stderr';
  chunk: string;
  timestamp: number;
}
/** A piece of the setup command's output (the project's `setupCommand`, run in a new worktree). */
export type SetupLogData = CheckLogData;
/** How a worktree's setup ended: installed (the cache missed or is off), or restored from the cache. */
export interface SetupResultData {
  runId: string;
  /** Null when it was stopped (timeout, cancel), could not start, or came from the cache. */
  exitCode: number | null;
  passed: boolean;
  timedOut: boolean;
  durationMs: number;
  /** The last 4 KB of its output. */
  tail: string;
  /** `hit`: restored from the dependency cache; `miss`: installed (and cached when it passed); `off`: no lockfile to key a cache by. */
  cache: 'hit' | 'miss' | 'off';
  /** The paths the setup made (`node_modules`, `.venv`…): restored and kept out of commits. */
  paths: string[];
  /** Why it failed, in one sentence (timeout, a sandbox limit, exit code). */
  reason?: string;
  timestamp: number;
}
/** How the repository's check ended. */
export interface CheckResultData {
  runId: string;
  /** Null when the check was stopped (timeout, cancel) or could not start. */
  exitCode: number | null;
  /** Exit code 0, within the time allowed. */
  passed: boolean;
  timedOut: boolean;
  durationMs: number;
  /** The last 4 KB of its output, stdout and stderr as they arrived. */
  tail: string;
  /**
   * Set when the check left a nested git repository in the worktree (or one could not be ruled
   * out): the sentence that says where. Such a check fails, and its run stops with `nested_repository`.
   */
  nestedRepository?: string;
  timestamp: number;
}
/** The tool names an agent step may call (see modules/agent-tools). */
export const AGENT_TOOL_NAMES = [
  'list_files',
  'read_file',
  'search',
  'edit_file',
  'write_file',
  'delete_file',
  'run_check',
  'finish',
] as const;
export type AgentToolName = (typeof AGENT_TOOL_NAMES)[number];

/**
 * An agent called a tool (the tool loop). `input` is the call's arguments as the model sent them,
 * long strings cut (edit texts, file contents); `tool` may be a name the model made up.
 */
export interface AgentToolCallData {
  runId: string;
  agent: AgentType;
  /** Pairs the call with its `agent-tool-result`. */
  callId: string;
  tool: string;
  input: Record<string, unknown>;
  /** The external coding agent that made the call (its own tool names: Write, Bash, exec_command…). */
  engine?: 'claude-code' | 'codex';
  timestamp: number;
}

/** What a tool call came to: one line a person reads, and for a change its counts and hunk. */
export interface AgentToolResultData {
  runId: string;
  agent: AgentType;
  callId: string;
  ok: boolean;
  /** "Read src/board.ts lines 1–200", "Edited src/board.ts +3 −1", "Ran the check — failed, exit 1". */
  summary: string;
  /** A write, edit or delete: the file, its line counts, and the change as a unified diff (capped). */
  change?: { path: string; added: number; removed: number; patch?: string };
  /** run_check: how the check ended (its output is in the check log). */
  check?: { passed: boolean; exitCode: number | null };
  timestamp: number;
}

/**
 * A run waits for another agent's lock on a file its coder writes (up to LOCK_WAIT_SECONDS, then it
 * pauses with `lock_conflict`): told when the wait begins, and again with `until: null` when it ends
 * (the lock taken, the wait given up or stopped). On the task's stream and the project's (the card).
 */
export interface LockWaitData {
  runId: string;
  taskId: string;
  /** The first file held by someone else. */
  path: string;
  /** Who holds it: an external agent's token, or another run (named after its task). */
  holder: { id: string; name: string };
  /** When the run stops waiting (epoch ms); null: the wait is over. */
  until: number | null;
  timestamp: number;
}

/**
 * A run's setup or check began (`running`) or ended, on the project's stream only: the board's card
 * says "Setting up…" or "Checking…" meanwhile (the task's stream has the step's log and result).
 */
export interface RunStepData {
  runId: string;
  taskId: string;
  step: 'setup' | 'check';
  running: boolean;
  /** How the step ended (with `running: false`). */
  passed?: boolean;
  timestamp: number;
}

export interface RunUpdateData {
  run: PipelineRunSummary;
  timestamp: number;
}

/**
 * Every event a task's stream carries; the project stream carries task-status, run-update, run-step,
 * lock-wait, the coordination events (locks taken, refused, released, expired) and head-moved (a branch moved).
 */
export type PipelineEvent =
  | { type: 'agent-log'; data: AgentLogData }
  | { type: 'phase-change'; data: PhaseChangeData }
  | { type: 'task-status'; data: TaskStatusData }
  | { type: 'error'; data: ErrorEventData }
  | { type: 'pipeline-complete'; data: PipelineCompleteData }
  | { type: 'usage'; data: UsageData }
  | { type: 'run-update'; data: RunUpdateData }
  | { type: 'timeout'; data: TimeoutData }
  | { type: 'check-log'; data: CheckLogData }
  | { type: 'check-result'; data: CheckResultData }
  | { type: 'setup-log'; data: SetupLogData }
  | { type: 'setup-result'; data: SetupResultData }
  | { type: 'agent-tool-call'; data: AgentToolCallData }
  | { type: 'agent-tool-result'; data: AgentToolResultData }
  | { type: 'lock-wait'; data: LockWaitData }
  | { type: 'run-step'; data: RunStepData }
  | CoordinationEvent
  | HeadMovedEvent;

export type PipelineEventType = PipelineEvent['type'];

/** An event as stored and replayed: its id is its sequence number within its stream. */
export type StoredEvent = PipelineEvent & { id: number };
