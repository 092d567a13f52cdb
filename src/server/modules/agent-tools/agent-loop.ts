import type { AgentType, TokenUsage } from '@/contracts/pipeline.js';
import {
  LlmError,
  type LlmProvider,
  type ToolCallOutcome,
  type ToolSpec,
  type TurnMessage,
} from '../llm/provider.js';
import type { ToolExecutor } from './tool-executor.js';
import type { ToolResult } from './tool-types.js';

/** Bad tool calls in a row (a refused call of any kind) after which a step gives up. */
export const MAX_BAD_CALLS_IN_ROW = 5;
/** Longest string of a call's input shown in the timeline; the rest is counted, not shown. */
const SHOWN_INPUT_CHARS = 2000;
/** Longest input shown in the timeline as a whole. */
const SHOWN_INPUT_TOTAL_CHARS = 8000;

/** The loop went nowhere: bad calls in a row, or its tool calls spent without finishing. */
export class AgentStuckError extends Error {
  constructor(
    readonly agent: AgentType,
    message: string,
  ) {
    super(message);
    this.name = 'AgentStuckError';
  }
}

/** What the model's step shows a person while it works. */
export interface LoopEvents {
  /** A piece of the model's prose. */
  onText(chunk: string): void;
  /** The model made a call (its input as sent, long strings cut). */
  onToolCall(call: {
    callId: string;
    tool: string;
    input: Record<string, unknown>;
    /** The external coding agent that made the call, if one did. */
    engine?: 'claude-code' | 'codex';
  }): void | Promise<void>;
  /** The call ended. `input` is the whole input, as parsed (for a hunk of an edit). */
  onToolResult(result: {
    callId: string;
    tool: string;
    input: Record<string, unknown>;
    result: ToolResult;
  }): void | Promise<void>;
}

/** Checked before every turn; throwing stops the turn from being made (a token budget). */
export type BeforeTurn = (
  request: { maxTokens: number; system: string; prompt: string },
  spent: { model: string; usage: TokenUsage },
) => Promise<void>;

export interface AgentLoopParams extends LoopEvents {
  provider: LlmProvider;
  agent: AgentType;
  model: string;
  maxTokens: number;
  system: string;
  /** The step in words: the first user message. */
  prompt: string;
  tools: ToolSpec[];
  executor: ToolExecutor;
  /** Tool calls the step may make. */
  maxToolCalls: number;
  signal?: AbortSignal;
  runId?: string;
  /** Mark the prompt for the provider's cache (every turn re-sends the conversation). */
  cache?: boolean;
  beforeTurn?: BeforeTurn;
  /**
   * For agents whose step ends in an answer (planner, reviewer): called with the prose of a turn
   * that made no tool call. `retry` asks once more with that text; `done` ends the loop. Without
   * it (the coder), a turn without calls ends the step.
   */
  onAnswer?: (text: string) => { done: true } | { retry: string };
  /** Largest answer text of one turn in UTF-8 bytes; past it the turn is aborted. */
  maxTurnBytes?: number;
  onTurnTooLarge?: () => Error;
}

export interface AgentLoopResult {
  /** The `finish` call's summary; null when the model stopped without it. */
  finishSummary: string | null;
  /** The prose of the last turn (for answer agents: the answer). */
  finalText: string;
  /** All prose of the step, turn after turn. */
  transcript: string;
  usage: TokenUsage;
  model: string;
  turns: number;
  toolCalls: number;
  durationMs: number;
}

const spentOf = new WeakMap<object, { model: string; usage: TokenUsage }>();

/** What a loop had spent when it failed with `error` (its turns were paid for all the same). */
export function loopSpending(error: unknown): { model: string; usage: TokenUsage } | undefined {
  return typeof error === 'object' && error !== null ? spentOf.get(error) : undefined;
}

function addUsage(total: TokenUsage, more: TokenUsage): void {
  total.inputTokens += more.inputTokens;
  total.outputTokens += more.outputTokens;
  if (more.cacheReadTokens) total.cacheReadTokens = (total.cacheReadTokens ?? 0) + more.cacheReadTokens;
  if (more.cacheWriteTokens) total.cacheWriteTokens = (total.cacheWriteTokens ?? 0) + more.cacheWriteTokens;
}

/** A call's arguments as an object, for the timeline and the hunk: what did not parse is shown raw. */
function parsedInput(args: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(args || '{}');
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // shown raw below
  }
  return { arguments: args };
}

/** The input as a person sees it: strings over SHOWN_INPUT_CHARS cut, with how much was left out. */
export function shownInput(input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    out[key] =
      typeof value === 'string' && value.length > SHOWN_INPUT_CHARS
        ? `${value.slice(0, SHOWN_INPUT_CHARS)}… (${value.length - SHOWN_INPUT_CHARS} more characters)`
        : value;
  }
  // Many keys or nested values (no tool takes them) are shown as the start of their JSON.
  const json = JSON.stringify(out);
  if (json.length <= SHOWN_INPUT_TOTAL_CHARS) return out;
  return {
    arguments: `${json.slice(0, SHOWN_INPUT_TOTAL_CHARS)}… (${json.length - SHOWN_INPUT_TOTAL_CHARS} more characters)`,
  };
}

/** The conversation as text, for a budget's estimate of a turn's input. */
function conversationText(messages: TurnMessage[], tools: ToolSpec[]): string {
  const parts: string[] = [JSON.stringify(tools)];
  for (const message of messages) {
    if (message.role === 'user') parts.push(message.text);
    else if (message.role === 'assistant')
      parts.push(message.text, ...message.toolCalls.map((c) => c.arguments));
    else parts.push(...message.results.map((r) => r.content), message.text ?? '');
  }
  return parts.join('\n');
}

/**
 * One agent step as a loop of tool calls: the model answers with prose and calls, the executor
 * runs the calls, their results go back, until the model calls `finish` (or, for an answer
 * agent, answers without calls). Bounded by `maxToolCalls` and MAX_BAD_CALLS_IN_ROW
 * (AgentStuckError); cancelled by `signal`. A provider error propagates (LlmError) with what the
 * step had spent (`loopSpending`).
 */
export async function runAgentLoop(params: AgentLoopParams): Promise<AgentLoopResult> {
  const spent = { model: params.model, usage: { inputTokens: 0, outputTokens: 0 } as TokenUsage };
  try {
    return await loop(params, spent);
  } catch (caught) {
    const error = withToolUseHint(caught);
    if (typeof error === 'object' && error !== null && spent.usage.inputTokens + spent.usage.outputTokens > 0)
      spentOf.set(error, { model: spent.model, usage: { ...spent.usage } });
    throw error;
  }
}

async function loop(
  params: AgentLoopParams,
  spent: { model: string; usage: TokenUsage },
): Promise<AgentLoopResult> {
  const started = Date.now();
  const messages: TurnMessage[] = [{ role: 'user', text: params.prompt }];
  const transcript: string[] = [];
  let toolCalls = 0;
  let badInRow = 0;
  let turns = 0;
  let answerRetried = false;
  let toolChoice: 'auto' | 'none' = 'auto';
  for (;;) {
    params.signal?.throwIfAborted();
    await params.beforeTurn?.(
      {
        maxTokens: params.maxTokens,
        system: params.system,
        prompt: conversationText(messages, params.tools),
      },
      spent,
    );
    const turnAbort = new AbortController();
    const signal = params.signal ? AbortSignal.any([params.signal, turnAbort.signal]) : turnAbort.signal;
    // The turn's prose and its calls' input count alike against the cap: both are the model's bytes.
    let received = 0;
    const count = (chunk: string) => {
      received += Buffer.byteLength(chunk, 'utf8');
      if (params.maxTurnBytes !== undefined && received > params.maxTurnBytes) {
        turnAbort.abort();
        throw params.onTurnTooLarge?.() ?? new Error('the answer grew too large');
      }
    };
    const response = await params.provider.turn({
      agent: params.agent,
      model: params.model,
      maxTokens: params.maxTokens,
      system: params.system,
      tools: params.tools,
      messages,
      toolChoice,
      cache: params.cache === true,
      signal,
      ...(params.runId ? { runId: params.runId } : {}),
      onText: (chunk) => {
        count(chunk);
        params.onText(chunk);
      },
      onToolInput: count,
    });
    turns += 1;
    addUsage(spent.usage, response.usage);
    spent.model = response.model || spent.model;
    if (response.text) transcript.push(response.text);
    messages.push({ role: 'assistant', text: response.text, toolCalls: response.toolCalls });
    const result = (finishSummary: string | null): AgentLoopResult => ({
      finishSummary,
      finalText: response.text,
      transcript: transcript.join('\n\n'),
      usage: spent.usage,
      model: spent.model,
      turns,
      toolCalls,
      durationMs: Date.now() - started,
    });

    if (response.toolCalls.length === 0) {
      if (!params.onAnswer) return result(null);
      const verdict = params.onAnswer(response.text);
      if ('done' in verdict || answerRetried) return result(null);
      answerRetried = true;
      messages.push({ role: 'user', text: verdict.retry });
      continue;
    }

    const outcomes: ToolCallOutcome[] = [];
    let finishSummary: string | null = null;
    for (const call of response.toolCalls) {
      params.signal?.throwIfAborted();
      const input = parsedInput(call.arguments);
      if (toolCalls >= params.maxToolCalls) {
        outcomes.push({ callId: call.id, ok: false, content: 'not run: the step has no tool calls left' });
        continue;
      }
      toolCalls += 1;
      await params.onToolCall({ callId: call.id, tool: call.name, input: shownInput(input) });
      const outcome = await params.executor.execute(call.name, call.arguments, params.signal);
      params.signal?.throwIfAborted();
      await params.onToolResult({ callId: call.id, tool: call.name, input, result: outcome });
      outcomes.push({
        callId: call.id,
        ok: outcome.ok,
        content: outcome.ok ? outcome.output : outcome.error,
      });
      badInRow = outcome.ok ? 0 : badInRow + 1;
      if (outcome.ok && call.name === 'finish') finishSummary = String(input.summary ?? '');
    }
    if (finishSummary !== null) return result(finishSummary);
    if (badInRow >= MAX_BAD_CALLS_IN_ROW) {
      throw new AgentStuckError(
        params.agent,
        `The ${params.agent} made ${badInRow} bad tool calls in a row (the last: ${lastError(outcomes)}), so its step was stopped. Retry runs the step again from the run's last commit.`,
      );
    }
    if (toolCalls >= params.maxToolCalls) {
      if (params.onAnswer && toolChoice === 'auto') {
        // An answer agent gets one more turn to answer from what it has seen.
        toolChoice = 'none';
        messages.push({
          role: 'tool',
          results: outcomes,
          text: `You have used all ${params.maxToolCalls} tool calls of this step. Answer now, from what you have seen.`,
        });
        continue;
      }
      throw new AgentStuckError(
        params.agent,
        `The ${params.agent} made ${toolCalls} tool calls (the project's maxToolCalls) without finishing, so its step was stopped. Raise the limit in the project's settings, or Retry: the step runs again from the run's last commit.`,
      );
    }
    messages.push({ role: 'tool', results: outcomes });
  }
}

/**
 * A request the endpoint refused (400/404/422) may be a model without tool use (a small local
 * model): the message says what to do about it.
 */
function withToolUseHint(error: unknown): unknown {
  if (!(error instanceof LlmError) || error.kind !== 'bad_request') return error;
  return new LlmError(
    'bad_request',
    `${error.message} If this model cannot use tools, set the project's coder engine to "one-shot" in its settings.`,
    error.status,
  );
}

function lastError(outcomes: ToolCallOutcome[]): string {
  const failed = outcomes.filter((o) => !o.ok).at(-1);
  const first = failed?.content.split('\n')[0] ?? '';
  return first.length > 200 ? `${first.slice(0, 200)}…` : first || 'unknown';
}
