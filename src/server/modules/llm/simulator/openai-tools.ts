import type { PromptSegment } from './prompt-cache.js';
import { BadRequest, isObject, jsonType, textOf } from './request-basics.js';
import {
  objectOf,
  type PastCall,
  type PastTurn,
  type ToolChoice,
  type ToolRequestParts,
} from './tool-conversation.js';

/** What AutoCoder's provider puts before a failed call's result: chat completions have no error flag. */
export const OPENAI_TOOL_ERROR_PREFIX = 'Error: ';
const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'];

const missing = (param: string) => new BadRequest(`Missing required parameter: '${param}'.`);
const wrongType = (param: string, expected: string, value: unknown) =>
  new BadRequest(`Invalid type for '${param}': expected ${expected}, but got ${jsonType(value)} instead.`);

function parseTools(raw: unknown): string[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw wrongType('tools', 'an array of objects', raw);
  return raw.map((tool, i) => {
    const at = `tools[${i}]`;
    if (!isObject(tool)) throw wrongType(at, 'an object', tool);
    if (tool.type !== 'function')
      throw new BadRequest(`Invalid value: '${String(tool.type)}'. Supported values are: 'function'.`);
    const fn = tool.function;
    if (fn === undefined) throw missing(`${at}.function`);
    if (!isObject(fn)) throw wrongType(`${at}.function`, 'an object', fn);
    if (fn.name === undefined) throw missing(`${at}.function.name`);
    if (typeof fn.name !== 'string') throw wrongType(`${at}.function.name`, 'a string', fn.name);
    if (!FUNCTION_NAME.test(fn.name))
      throw new BadRequest(
        `Invalid '${at}.function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
      );
    if (fn.parameters !== undefined && !isObject(fn.parameters))
      throw wrongType(`${at}.function.parameters`, 'an object', fn.parameters);
    return fn.name;
  });
}

function parseChoice(raw: unknown, names: string[]): ToolChoice {
  if (raw === undefined || raw === null) return 'auto';
  if (names.length === 0)
    throw new BadRequest(
      "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
    );
  if (raw === 'auto' || raw === 'none' || raw === 'required') return raw;
  if (isObject(raw) && raw.type === 'function' && isObject(raw.function)) {
    const name = raw.function.name;
    if (typeof name !== 'string') throw missing('tool_choice.function.name');
    if (!names.includes(name))
      throw new BadRequest(`Invalid value for 'tool_choice': function '${name}' is not among the tools.`);
    return { name };
  }
  throw new BadRequest(
    "Invalid value for 'tool_choice': expected 'none', 'auto', 'required' or a named function.",
  );
}

function parseCalls(raw: unknown, at: string): PastCall[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw wrongType(`${at}.tool_calls`, 'an array', raw);
  return raw.map((call, j) => {
    const where = `${at}.tool_calls[${j}]`;
    if (!isObject(call)) throw wrongType(where, 'an object', call);
    if (typeof call.id !== 'string') throw missing(`${where}.id`);
    if (call.type !== 'function') throw missing(`${where}.type`);
    if (!isObject(call.function)) throw missing(`${where}.function`);
    const { name, arguments: args } = call.function;
    if (typeof name !== 'string') throw missing(`${where}.function.name`);
    if (typeof args !== 'string') throw missing(`${where}.function.arguments`);
    return { id: call.id, name, input: objectOf(args), arguments: args };
  });
}

const toolMessages = (messages: unknown[]) =>
  messages.some((m) => isObject(m) && (m.role === 'tool' || Array.isArray(m.tool_calls)));

/**
 * The tool-using parts of a chat.completions request, checked as the API checks them: the tools,
 * tool_choice, each message's role and calls, and that each tool message answers a call of the
 * assistant message before it and every call is answered before the conversation goes on.
 */
export function openAiToolParts(body: Record<string, unknown>, messages: unknown[]): ToolRequestParts {
  const names = parseTools(body.tools);
  const choice = parseChoice(body.tool_choice, names);
  const toolMode = names.length > 0;
  const checked = toolMode || toolMessages(messages);
  const turns: PastTurn[] = [];
  const notes: string[] = [];
  const segments: PromptSegment[] = [{ text: JSON.stringify(body.tools ?? []) }];
  let firstUser: string | undefined;
  let pending = new Map<string, PastCall>();
  for (const [i, message] of messages.entries()) {
    const at = `messages[${i}]`;
    if (!isObject(message)) {
      if (checked) throw wrongType(at, 'an object', message);
      continue;
    }
    const role = message.role;
    if (checked && (typeof role !== 'string' || !ROLES.includes(role)))
      throw new BadRequest(
        `Invalid value: '${String(role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
      );
    const { role: _role, content, tool_calls, tool_call_id, name } = message;
    segments.push({ text: JSON.stringify({ role, content, tool_calls, tool_call_id, name }) });
    if (!checked) continue;
    if (role === 'tool') {
      if (typeof tool_call_id !== 'string') throw missing(`${at}.tool_call_id`);
      const call = pending.get(tool_call_id);
      if (!call)
        throw new BadRequest(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
        );
      const text = textOf(content);
      const failed = text.startsWith(OPENAI_TOOL_ERROR_PREFIX);
      call.result = { ok: !failed, content: failed ? text.slice(OPENAI_TOOL_ERROR_PREFIX.length) : text };
      pending.delete(tool_call_id);
      continue;
    }
    if (pending.size > 0)
      throw new BadRequest(
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...pending.keys()].join(', ')}`,
      );
    if (role === 'assistant') {
      const calls = parseCalls(tool_calls, at);
      turns.push({ text: textOf(content), calls });
      pending = new Map(calls.map((call) => [call.id, call]));
    } else if (role === 'user') {
      if (firstUser === undefined) firstUser = textOf(content);
      else notes.push(textOf(content));
    }
  }
  if (pending.size > 0)
    throw new BadRequest(
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...pending.keys()].join(', ')}`,
    );
  if (!checked) {
    const user = messages.find((m) => isObject(m) && m.role === 'user') as { content?: unknown } | undefined;
    firstUser = textOf(user?.content);
  }
  return {
    firstUser: firstUser ?? '',
    ...(toolMode
      ? {
          conversation: { protocol: 'openai', tools: names, choice, turns, notes },
          cacheSegments: segments,
        }
      : {}),
  };
}
