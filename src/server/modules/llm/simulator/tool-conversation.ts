import type { PromptSegment } from './prompt-cache.js';

/** A tool call the model made earlier in the conversation, with what it came to. */
export interface PastCall {
  id: string;
  name: string;
  /** The input, when it is a JSON object. */
  input: Record<string, unknown> | undefined;
  /** Its arguments as sent (JSON text). */
  arguments: string;
  /** Its result, from the next message; `ok: false` is a tool error (is_error, or "Error: …"). */
  result?: { ok: boolean; content: string };
}

/** One earlier answer of the model: its prose and its calls. */
export interface PastTurn {
  text: string;
  calls: PastCall[];
}

export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

/** A tool-using request (a non-empty `tools`), in the simulator's words, whichever API it came by. */
export interface ToolConversation {
  protocol: 'anthropic' | 'openai';
  /** The declared tools' names. */
  tools: string[];
  choice: ToolChoice;
  /** The model's earlier turns, oldest first. */
  turns: PastTurn[];
  /** Text a user message added after the first one (the loop's word after tool results). */
  notes: string[];
}

/** What a request parser hands the server beyond the one-shot fields. */
export interface ToolRequestParts {
  /** The first user message's text: the step's prompt (in a loop the last one holds tool results). */
  firstUser: string;
  /** Present when the request declares tools. */
  conversation?: ToolConversation;
  /** The prompt as cache segments, when it is cached (tools, or Anthropic cache_control marks). */
  cacheSegments?: PromptSegment[];
}

/** The object without `cache_control`: a mark does not change a prefix. */
export function withoutCacheControl(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const { cache_control: _mark, ...rest } = value as Record<string, unknown>;
  return rest;
}

/** JSON of an input the API carries as text: an object or undefined. */
export function objectOf(args: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(args);
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
