import type { PromptSegment } from './prompt-cache.js';
import type { SimRequest } from './request.js';
import { BadRequest, isObject, jsonType, textOf } from './request-basics.js';
import { objectOf, type PastCall, type PastTurn, type ToolChoice } from './tool-conversation.js';

/**
 * OpenAI's Responses API (`POST /v1/responses`), as Codex speaks it: `instructions`, `input` items
 * (messages, function calls and their outputs), function `tools`. Read leniently: items the
 * simulator has no use for (reasoning, web searches, …) are skipped, not refused.
 */

type Item = Record<string, unknown>;

const wrongType = (param: string, expected: string, value: unknown) =>
  new BadRequest(`Invalid type for '${param}': expected ${expected}, but got ${jsonType(value)} instead.`);

/** The names of the declared tools: functions (also inside a namespace), custom tools. */
function toolNames(raw: unknown): string[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw wrongType('tools', 'an array of objects', raw);
  const names: string[] = [];
  for (const [i, tool] of raw.entries()) {
    if (!isObject(tool)) throw wrongType(`tools[${i}]`, 'an object', tool);
    if (typeof tool.name === 'string' && (tool.type === 'function' || tool.type === 'custom'))
      names.push(tool.name);
    if (tool.type === 'namespace' && Array.isArray(tool.tools)) {
      for (const inner of tool.tools)
        if (isObject(inner) && typeof inner.name === 'string') names.push(inner.name);
    }
  }
  return names;
}

function choiceOf(raw: unknown): ToolChoice {
  if (raw === 'none' || raw === 'required') return raw;
  if (isObject(raw) && raw.type === 'function' && typeof raw.name === 'string') return { name: raw.name };
  return 'auto';
}

/** An item's text: a string content, or its parts' `text` (input_text, output_text, …). */
const contentText = (content: unknown) => textOf(content);

function itemsOf(input: unknown): Item[] {
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input }];
  if (!Array.isArray(input)) throw wrongType('input', 'a string or an array', input);
  return input.map((item, i) => {
    if (!isObject(item)) throw wrongType(`input[${i}]`, 'an object', item);
    // An item without a type is a message (the API's shorthand `{role, content}`).
    return item.type === undefined ? { ...item, type: 'message' } : item;
  });
}

/** A function_call_output's text: a string, or content parts. */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  return textOf(output);
}

/**
 * The request as the simulator reads it. `prompt` is the first user message, or the first that
 * `pickPrompt` accepts (Codex puts its own context messages before the person's prompt).
 */
export function parseResponsesRequest(
  body: Record<string, unknown>,
  pickPrompt: (text: string) => boolean = () => true,
): SimRequest {
  if (typeof body.model !== 'string' || !body.model)
    throw new BadRequest("Missing required parameter: 'model'.");
  if (body.input === undefined) throw new BadRequest("Missing required parameter: 'input'.");
  const items = itemsOf(body.input);
  const tools = toolNames(body.tools);
  const instructions = typeof body.instructions === 'string' ? body.instructions : '';

  const system: string[] = instructions ? [instructions] : [];
  const users: string[] = [];
  const turns: PastTurn[] = [];
  const calls = new Map<string, PastCall>();
  const segments: PromptSegment[] = [];
  if (body.tools !== undefined) segments.push({ text: JSON.stringify(body.tools) });
  if (instructions) segments.push({ text: instructions });
  // The model's items since the last user or tool item make one turn.
  let open: PastTurn | undefined;
  const turn = () => {
    if (!open) {
      open = { text: '', calls: [] };
      turns.push(open);
    }
    return open;
  };
  for (const item of items) {
    const { id: _id, ...canonical } = item;
    segments.push({ text: JSON.stringify(canonical) });
    switch (item.type) {
      case 'message': {
        const text = contentText(item.content);
        if (item.role === 'assistant') turn().text += text;
        else {
          open = undefined;
          if (item.role === 'system' || item.role === 'developer') system.push(text);
          else users.push(text);
        }
        break;
      }
      case 'function_call':
      case 'custom_tool_call': {
        const args =
          typeof item.arguments === 'string'
            ? item.arguments
            : typeof item.input === 'string'
              ? item.input
              : '';
        const call: PastCall = {
          id: String(item.call_id ?? item.id ?? ''),
          name: String(item.name ?? ''),
          input: objectOf(args),
          arguments: args,
        };
        turn().calls.push(call);
        calls.set(call.id, call);
        break;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        open = undefined;
        const call = calls.get(String(item.call_id ?? ''));
        if (call) call.result = { ok: true, content: outputText(item.output) };
        break;
      }
      default:
        // reasoning, web_search_call, …: part of the model's turn, nothing the simulator reads.
        break;
    }
  }
  const prompt = users.find(pickPrompt) ?? users[0] ?? '';
  const limit = body.max_output_tokens;
  return {
    model: body.model,
    system: system.join('\n'),
    prompt,
    maxTokens: typeof limit === 'number' && limit > 0 ? limit : undefined,
    stream: body.stream === true,
    includeUsage: true,
    ...(tools.length > 0
      ? {
          tools: {
            protocol: 'openai',
            tools,
            choice: choiceOf(body.tool_choice),
            turns,
            notes: users.filter((text) => text !== prompt),
          },
        }
      : {}),
    cacheSegments: segments,
  };
}
