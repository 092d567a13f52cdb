import type {
  ActivePhase,
  AgentConfig,
  AgentType,
  FileChange,
  ReviewResult,
  Subtask,
} from '@/contracts/pipeline.js';
import type { LlmProvider } from '../llm/provider.js';
import type { TaskContext } from './prompts/task-context.js';

/** Where a run stands inside its phase; persisted so a retry resumes at the failed agent call. */
export interface RunCursor {
  phase: ActivePhase;
  /** Next subtask to code (coding). */
  subtaskIndex: number;
  /** Iteration at which the current round of automatic fixes began (start, or a request for changes). */
  roundStart: number;
  /** Retries already made of the agent call that failed; reset by every successful call. */
  retryCount: number;
  /** The person's feedback still to be coded (request changes). */
  feedback?: string | undefined;
}

/** Everything the driver needs for one run, in memory while it executes. */
export interface RunContext {
  runId: string;
  taskId: string;
  projectId: string;
  userId: string;
  task: TaskContext;
  repoPath: string;
  defaultBranch: string;
  worktreePath: string;
  branch: string;
  baseCommit: string | null;
  headCommit: string | null;
  provider: LlmProvider;
  configs: Record<AgentType, AgentConfig>;
  cursor: RunCursor;
  iteration: number;
  subtasks: Subtask[];
  fileChanges: FileChange[];
  review: ReviewResult | null;
  /** Feedback of the latest request for changes, shown to the reviewer too. */
  lastFeedback: string | undefined;
  controller: AbortController;
  /** Set by cancel() before anything else, so the driver never writes past it. */
  cancelled: boolean;
  /** Fields to write with the run's next update (folded in to save a write). */
  pendingPatch?: Record<string, unknown> | undefined;
  /** Token totals of the run. */
  usage: { inputTokens: number; outputTokens: number; costUsd: number };
}

/** Merges a batch of changes into the run's list: the latest action per path wins. */
export function mergeFileChanges(previous: FileChange[], next: FileChange[]): FileChange[] {
  const byPath = new Map(previous.map((change) => [change.filePath, change]));
  for (const change of next) byPath.set(change.filePath, change);
  return [...byPath.values()];
}

/** The agent that works in a phase. */
export function agentOf(phase: ActivePhase): AgentType {
  return phase === 'planning' ? 'planner' : phase === 'reviewing' ? 'reviewer' : 'coder';
}
