import type { AgentToolResultData, TokenUsage } from '@/contracts/pipeline.js';
import type { LlmProvider } from '../llm/provider.js';
import type { BeforeTurn, LoopEvents } from './agent-loop.js';

/**
 * How the pipeline has a coder do its step, whatever does it: AutoCoder's own tool loop
 * (`autocoder-engine.ts`), one answer of whole files (the pipeline's one-shot engine), or, later,
 * an external agent. Given the step, an engine changes the worktree and reports what it spent; the
 * pipeline then commits the worktree (one commit per subtask or fix), and the diff, the check and
 * the review see the commit as before.
 */
export interface CoderEngine {
  readonly id: string;
  run(step: CoderStep): Promise<CoderStepResult>;
}

/** What a step's check run gives back to the agent. */
export interface CheckRunOutcome {
  passed: boolean;
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  /** The end of its output. */
  tail: string;
}

export interface CoderStep {
  runId: string;
  /** The run's worktree: every path the engine touches stays inside it. */
  worktree: string;
  /** The step in words — the task, the subtask or the findings, the failed check, feedback, comments. */
  prompt: string;
  /** The step in one line: its commit's subject, and the message on the files it locks. */
  title: string;
  provider: LlmProvider;
  model: string;
  maxTokens: number;
  /** Tool calls the step may make (the project's `maxToolCalls`). */
  maxToolCalls: number;
  /** Cancel: stops the model's stream and any running tool at once. */
  signal: AbortSignal;
  /**
   * Takes the file's WRITING lock before anything touches it; waits while another agent holds it,
   * and throws (with the holder's name) when the wait ends without it.
   */
  beforeWrite(path: string): Promise<void>;
  /** The project's check in the sandbox, streamed into the check log; absent when it has none. */
  runCheck?: ((signal: AbortSignal) => Promise<CheckRunOutcome>) | undefined;
  beforeTurn?: BeforeTurn;
  /** The step's timeline: prose, and each call with its result. */
  events: LoopEvents;
  /**
   * What an engine run in the sandbox sees besides the worktree (the project's git directory,
   * read-only) and the hosts it may reach (the project's allow-list; null: the operator's).
   */
  sandboxed?: { readOnlyPaths: readonly string[]; allowedHosts: readonly string[] | null };
  /** Largest prose of one turn in bytes, and the error past it. */
  maxTurnBytes?: number;
  onTurnTooLarge?: () => Error;
}

export interface CoderStepResult {
  /** What the agent said it did (`finish`), or null when it stopped without saying. */
  summary: string | null;
  /** The step's prose, for the run's agent log. */
  transcript: string;
  usage: TokenUsage;
  model: string;
  durationMs: number;
  turns: number;
  toolCalls: number;
  /** The cost the engine reported itself (Claude Code), in place of AutoCoder's estimate. */
  costUsd?: number;
}

/** Longest patch a timeline line carries; the rest is counted. */
const PATCH_CHARS = 4000;

/**
 * The change a successful write, edit or delete made, for the timeline: its counts and a patch
 * built from the call itself (the replaced text and its replacement, or the new file).
 */
export function timelineChange(
  tool: string,
  input: Record<string, unknown>,
  changed: { path: string; added: number; removed: number } | undefined,
): AgentToolResultData['change'] {
  if (!changed) return undefined;
  const lines = (text: unknown, mark: string) =>
    typeof text === 'string' && text !== ''
      ? text
          .replace(/\r\n/g, '\n')
          .replace(/\n$/, '')
          .split('\n')
          .map((line) => `${mark}${line}`)
      : [];
  let body: string[] = [];
  if (tool === 'edit_file') body = [...lines(input.oldText, '-'), ...lines(input.newText, '+')];
  else if (tool === 'write_file') body = lines(input.content, '+');
  if (body.length === 0) return { ...changed };
  let patch = `--- a/${changed.path}\n+++ b/${changed.path}\n@@\n${body.join('\n')}\n`;
  if (patch.length > PATCH_CHARS) {
    const cut = patch.lastIndexOf('\n', PATCH_CHARS);
    patch = `${patch.slice(0, cut > 0 ? cut : PATCH_CHARS)}\n… (${patch.length - PATCH_CHARS} more characters)\n`;
  }
  return { ...changed, patch };
}
