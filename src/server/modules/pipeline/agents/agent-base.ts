import type { z } from 'zod';
import { stripControl } from '@/contracts/common.js';
import type { AgentConfig, AgentType, TokenUsage } from '@/contracts/pipeline.js';
import { type LoopEvents, loopSpending, runAgentLoop } from '@/server/modules/agent-tools/agent-loop.js';
import { READ_ONLY_TOOLS, toolDeclarations } from '@/server/modules/agent-tools/tool-declarations.js';
import { createToolExecutor } from '@/server/modules/agent-tools/tool-executor.js';
import type { LlmProvider } from '@/server/modules/llm/provider.js';

/** What the agent answered could not be read as the JSON its schema asks for, twice. */
export class AgentOutputError extends Error {
  constructor(
    readonly agent: AgentType,
    message: string,
  ) {
    super(message);
    this.name = 'AgentOutputError';
  }
}

/** What an agent call has spent so far on earlier attempts (an answer that did not parse). */
export interface SpentInCall {
  model: string;
  usage: TokenUsage;
}

/**
 * Called before every provider call of an agent call (the reminder after an answer that did not
 * parse included); it throws to stop the call from being made (a token budget).
 */
export type BeforeCall = (
  request: { maxTokens: number; system: string; prompt: string },
  spentInCall: SpentInCall,
) => Promise<void>;

const unrecorded = new WeakMap<object, SpentInCall>();

/**
 * The tokens an agent call had spent when it failed (attempts whose answers were not used): they
 * were spent all the same, so the run counts them when it pauses or fails.
 */
export function unrecordedUsage(error: unknown): SpentInCall | undefined {
  return typeof error === 'object' && error !== null ? unrecorded.get(error) : undefined;
}

/** Notes what a failed call had spent (a tool loop's turns), for `unrecordedUsage`. */
export function markUnrecorded(error: unknown, spent: SpentInCall): void {
  if (typeof error === 'object' && error !== null) unrecorded.set(error, spent);
}

/** The read-only tools an answer agent (planner, reviewer) may use before it answers. */
export interface AnswerAgentTools {
  /** The run's worktree, read through list_files, read_file and search. */
  worktree: string;
  maxToolCalls: number;
  /** Tool calls and results, for the timeline (its prose goes to onChunk). */
  events: Pick<LoopEvents, 'onToolCall' | 'onToolResult'>;
}

export interface AgentExecuteParams {
  provider: LlmProvider;
  config: AgentConfig;
  runId: string;
  onChunk: (chunk: string) => void;
  signal?: AbortSignal;
  /** Largest answer accepted, in UTF-8 bytes; past it the stream is aborted (AnswerTooLargeError). */
  maxAnswerBytes?: number;
  /** Checked before every provider call; throwing stops the call from being made. */
  beforeCall?: BeforeCall;
  /** Given: the agent works in a loop of read-only tool calls, then answers (see agent-loop.ts). */
  tools?: AnswerAgentTools | undefined;
}

export interface AgentResult<T> {
  output: T;
  /** The full text of the answer that parsed. */
  text: string;
  tokenUsage: TokenUsage;
  /** Number of provider calls (2 when the first answer did not parse). */
  attempts: number;
  durationMs: number;
  model: string;
  /** The cost the engine reported itself (Claude Code), used instead of AutoCoder's estimate. */
  costUsd?: number | undefined;
}

/** The answer grew past the configured cap (AUTOCODER_MAX_ANSWER_BYTES); its stream was aborted. */
export class AnswerTooLargeError extends Error {
  constructor(
    readonly agent: AgentType,
    readonly maxBytes: number,
  ) {
    super(
      `The ${agent}'s answer grew past ${maxBytes} bytes (AUTOCODER_MAX_ANSWER_BYTES), so it was stopped. ` +
        'Try again, or simplify the task.',
    );
    this.name = 'AnswerTooLargeError';
  }
}

/** Default cap on one agent answer, in UTF-8 bytes (1 MiB). */
export const DEFAULT_MAX_ANSWER_BYTES = 1024 * 1024;

const FENCE = '```';

/**
 * The JSON inside an agent's answer: the last ```json fence, else any fence, else the
 * outermost {...} span. Returns null when there is none.
 *
 * A single forward scan with indexOf (linear in the text): a fence opens with ``` and the
 * rest of its line (the first word naming the language), and closes at the next ```, a
 * newline just before it excluded. A regex doing the same is quadratic on runs of backticks.
 */
export function extractJSON(text: string): string | null {
  let lastJson: string | undefined;
  let lastAny: string | undefined;
  for (let at = text.indexOf(FENCE); at >= 0; ) {
    const lineEnd = text.indexOf('\n', at + FENCE.length);
    if (lineEnd < 0) break;
    const close = text.indexOf(FENCE, lineEnd + 1);
    if (close < 0) break;
    const language = /^\w*/.exec(text.slice(at + FENCE.length, lineEnd))?.[0] ?? '';
    const end = close > lineEnd + 1 && text[close - 1] === '\n' ? close - 1 : close;
    const body = text.slice(lineEnd + 1, end);
    lastAny = body;
    if (language.toLowerCase() === 'json') lastJson = body;
    at = text.indexOf(FENCE, close + FENCE.length);
  }
  const fenced = (lastJson ?? lastAny)?.trim();
  if (fenced) return fenced;
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  return start >= 0 && end > start ? text.slice(start, end + 1) : null;
}

/** Parses and validates an agent's answer; null when it does not hold a valid object. */
export function parseAgentJSON<S extends z.ZodType>(text: string, schema: S): z.output<S> | null {
  const candidate = extractJSON(text);
  if (!candidate) return null;
  let value: unknown;
  try {
    value = JSON.parse(candidate);
  } catch {
    return null; // not JSON: the caller asks again
  }
  const result = schema.safeParse(value);
  return result.success ? result.data : null;
}

/** Agent text as logged: control characters (ANSI escapes and the like) removed. HTML is escaped where it is shown. */
export function sanitizeAgentOutput(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escape sequences start with ESC.
  return stripControl(text.replace(/\u001b\[[0-9;]*[A-Za-z]/g, ''));
}

const JSON_REMINDER =
  '\n\nYour previous answer could not be parsed. Respond with ONLY valid JSON matching the schema, in a ```json code block.';

/**
 * Streams one agent call, forwarding chunks, and validates the answer against its
 * schema; an answer that does not parse is asked for once more with an explicit
 * reminder. Provider errors (LlmError) propagate to the orchestrator, with the tokens the call
 * had spent by then (`unrecordedUsage`).
 */
export async function runAgent<S extends z.ZodType>(
  agent: AgentType,
  params: AgentExecuteParams & { system: string; prompt: string; schema: S },
): Promise<AgentResult<z.output<S>>> {
  if (params.tools) return answerWithTools(agent, params, params.tools);
  const spent: SpentInCall = { model: params.config.model, usage: { inputTokens: 0, outputTokens: 0 } };
  try {
    return await callUntilParsed(agent, params, spent);
  } catch (error) {
    if (typeof error === 'object' && error !== null && spent.usage.inputTokens + spent.usage.outputTokens > 0)
      unrecorded.set(error, spent);
    throw error;
  }
}

async function callUntilParsed<S extends z.ZodType>(
  agent: AgentType,
  params: AgentExecuteParams & { system: string; prompt: string; schema: S },
  spent: SpentInCall,
): Promise<AgentResult<z.output<S>>> {
  const started = Date.now();
  const { usage } = spent;
  const maxBytes = params.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
  for (let attempt = 1; attempt <= 2; attempt++) {
    const prompt = attempt === 1 ? params.prompt : params.prompt + JSON_REMINDER;
    await params.beforeCall?.({ maxTokens: params.config.maxTokens, system: params.system, prompt }, spent);
    // Counted per chunk as it arrives (never by re-reading the answer); an exception from onText
    // ends the provider's stream loop, and aborting the call's own signal closes the connection.
    const call = new AbortController();
    const signal = params.signal ? AbortSignal.any([params.signal, call.signal]) : call.signal;
    let received = 0;
    const response = await params.provider.stream({
      agent,
      model: params.config.model,
      maxTokens: params.config.maxTokens,
      system: params.system,
      prompt,
      runId: params.runId,
      onText: (chunk) => {
        received += Buffer.byteLength(chunk, 'utf8');
        if (received > maxBytes) {
          call.abort();
          throw new AnswerTooLargeError(agent, maxBytes);
        }
        params.onChunk(sanitizeAgentOutput(chunk));
      },
      signal,
    });
    usage.inputTokens += response.usage.inputTokens;
    usage.outputTokens += response.usage.outputTokens;
    spent.model = response.model || spent.model;
    const output = parseAgentJSON(response.text, params.schema);
    if (output !== null) {
      return {
        output,
        text: response.text,
        tokenUsage: usage,
        attempts: attempt,
        durationMs: Date.now() - started,
        model: spent.model,
      };
    }
    if (attempt === 1)
      params.onChunk('\n\n[AutoCoder] The answer was not valid JSON for its schema; asking once more.\n\n');
  }
  throw new AgentOutputError(agent, `The ${agent}'s answer was not valid JSON for its schema, twice.`);
}

/** How an answer agent is told it may look before it answers. */
const TOOLS_NOTE = `

You can look at the repository before you answer: list_files, read_file and search (read-only).
Look only where it helps; then give your answer as above, with no further tool call.`;

/**
 * An answer agent with the read-only tools: it may list, read and search the worktree, then
 * answers with the JSON its schema asks for; an answer that does not parse is asked for once more.
 */
async function answerWithTools<S extends z.ZodType>(
  agent: AgentType,
  params: AgentExecuteParams & { system: string; prompt: string; schema: S },
  tools: AnswerAgentTools,
): Promise<AgentResult<z.output<S>>> {
  const maxBytes = params.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
  let output: z.output<S> | null = null;
  try {
    const result = await runAgentLoop({
      provider: params.provider,
      agent,
      model: params.config.model,
      maxTokens: params.config.maxTokens,
      system: params.system + TOOLS_NOTE,
      prompt: params.prompt,
      tools: toolDeclarations(READ_ONLY_TOOLS),
      executor: createToolExecutor({ worktree: tools.worktree }),
      maxToolCalls: tools.maxToolCalls,
      runId: params.runId,
      cache: true,
      ...(params.signal ? { signal: params.signal } : {}),
      ...(params.beforeCall ? { beforeTurn: params.beforeCall } : {}),
      maxTurnBytes: maxBytes,
      onTurnTooLarge: () => new AnswerTooLargeError(agent, maxBytes),
      onText: (chunk) => params.onChunk(sanitizeAgentOutput(chunk)),
      ...tools.events,
      onAnswer: (text) => {
        output = parseAgentJSON(text, params.schema);
        if (output !== null) return { done: true };
        params.onChunk('\n\n[AutoCoder] The answer was not valid JSON for its schema; asking once more.\n\n');
        return { retry: JSON_REMINDER.trim() };
      },
    });
    if (output === null) {
      const error = new AgentOutputError(
        agent,
        `The ${agent}'s answer was not valid JSON for its schema, twice.`,
      );
      unrecorded.set(error, { model: result.model, usage: result.usage });
      throw error;
    }
    return {
      output,
      text: result.finalText,
      tokenUsage: result.usage,
      attempts: result.turns,
      durationMs: result.durationMs,
      model: result.model,
    };
  } catch (error) {
    const spent = loopSpending(error);
    if (spent && !unrecorded.has(error as object)) markUnrecorded(error, spent);
    throw error;
  }
}
