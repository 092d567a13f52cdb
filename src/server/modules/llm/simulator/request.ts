import type { IncomingMessage } from 'node:http';
import { anthropicToolParts } from './anthropic-tools.js';
import { openAiToolParts } from './openai-tools.js';
import type { PromptSegment } from './prompt-cache.js';
import { BadRequest, isObject, textOf } from './request-basics.js';
import type { ToolConversation } from './tool-conversation.js';

export { BadRequest } from './request-basics.js';

/** The parts of a Messages or chat.completions request the simulator uses. */
export interface SimRequest {
  model: string;
  system: string;
  /**
   * The step's prompt: the last user message of a one-shot request; with tools, the FIRST user
   * message (in a loop the last one holds tool results).
   */
  prompt: string;
  maxTokens: number | undefined;
  stream: boolean;
  includeUsage: boolean;
  /** Present when the request declares tools (a non-empty `tools`): the conversation so far. */
  tools?: ToolConversation;
  /** The prompt as cache segments, when caching applies (tools, or Anthropic cache_control marks). */
  cacheSegments?: PromptSegment[];
}

const MAX_BODY_BYTES = 32 * 1024 * 1024;

export async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new BadRequest('request body too large', 413);
    chunks.push(chunk as Buffer);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new BadRequest('the request body is not valid JSON');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new BadRequest('the request body must be a JSON object');
  }
  return value as Record<string, unknown>;
}

function lastUserText(messages: unknown[]): string {
  const user = messages.filter(
    (m): m is { role: string; content: unknown } =>
      !!m && typeof m === 'object' && (m as { role?: unknown }).role === 'user',
  );
  return textOf(user.at(-1)?.content);
}

function requireModel(body: Record<string, unknown>): string {
  if (typeof body.model !== 'string' || !body.model) throw new BadRequest('model: Field required');
  return body.model;
}

export function parseAnthropicRequest(body: Record<string, unknown>): SimRequest {
  const model = requireModel(body);
  if (typeof body.max_tokens !== 'number' || body.max_tokens < 1) {
    throw new BadRequest('max_tokens: Field required');
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    throw new BadRequest('messages: at least one message is required');
  }
  // Claude Code puts context in messages with role "system" among the others: taken as system text.
  const isSystem = (m: unknown) => isObject(m) && m.role === 'system';
  const messages = body.messages.filter((m) => !isSystem(m));
  if (messages.length === 0) throw new BadRequest('messages: at least one message is required');
  const system = [
    textOf(body.system),
    ...body.messages.filter(isSystem).map((m) => textOf((m as { content?: unknown }).content)),
  ];
  const parts = anthropicToolParts(body, messages);
  return {
    model,
    system: system.filter(Boolean).join('\n'),
    prompt: parts.conversation ? parts.firstUser : lastUserText(messages),
    maxTokens: body.max_tokens,
    stream: body.stream === true,
    includeUsage: true,
    ...(parts.conversation ? { tools: parts.conversation } : {}),
    ...(parts.cacheSegments ? { cacheSegments: parts.cacheSegments } : {}),
  };
}

export function parseOpenAiRequest(body: Record<string, unknown>): SimRequest {
  const model = requireModel(body);
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    throw new BadRequest('messages: at least one message is required');
  }
  const system = body.messages
    .filter(
      (m) =>
        m && typeof m === 'object' && ['system', 'developer'].includes((m as { role?: string }).role ?? ''),
    )
    .map((m) => textOf((m as { content?: unknown }).content))
    .join('\n');
  const limit = body.max_completion_tokens ?? body.max_tokens;
  const options = body.stream_options as { include_usage?: unknown } | undefined;
  const parts = openAiToolParts(body, body.messages);
  return {
    model,
    system,
    prompt: parts.conversation ? parts.firstUser : lastUserText(body.messages),
    maxTokens: typeof limit === 'number' && limit > 0 ? limit : undefined,
    stream: body.stream === true,
    includeUsage: options?.include_usage === true,
    ...(parts.conversation ? { tools: parts.conversation } : {}),
    ...(parts.cacheSegments ? { cacheSegments: parts.cacheSegments } : {}),
  };
}

/** The key as `x-api-key` or `Authorization: Bearer …` (the SDK 1.x sends the latter); any non-empty value. */
export function hasCredentials(req: IncomingMessage): boolean {
  const apiKey = req.headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey.trim()) return true;
  return /^Bearer\s+\S+/i.test(req.headers.authorization ?? '');
}

export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text?.trim() || undefined;
}
