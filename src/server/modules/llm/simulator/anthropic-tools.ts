import type { PromptSegment } from './prompt-cache.js';
import { BadRequest, isObject, textOf } from './request-basics.js';
import {
  type PastCall,
  type PastTurn,
  type ToolChoice,
  type ToolRequestParts,
  withoutCacheControl,
} from './tool-conversation.js';

/** Anthropic's rule for a custom tool's name. */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;

type Block = Record<string, unknown> & { type: string };

function parseTools(raw: unknown): Record<string, unknown>[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new BadRequest('tools: Input should be a valid list');
  const names = new Set<string>();
  return raw.map((tool, i) => {
    if (!isObject(tool)) throw new BadRequest(`tools.${i}: Input should be a valid dictionary`);
    if (typeof tool.name !== 'string') throw new BadRequest(`tools.${i}.name: Field required`);
    const custom = tool.type === undefined || tool.type === null || tool.type === 'custom';
    if (custom) {
      if (!TOOL_NAME.test(tool.name))
        throw new BadRequest(`tools.${i}.name: String should match pattern '${TOOL_NAME.source}'`);
      if (tool.description !== undefined && typeof tool.description !== 'string')
        throw new BadRequest(`tools.${i}.description: Input should be a valid string`);
      if (!isObject(tool.input_schema)) throw new BadRequest(`tools.${i}.input_schema: Field required`);
      if (tool.input_schema.type !== 'object')
        throw new BadRequest(`tools.${i}.input_schema.type: Input should be 'object'`);
    }
    if (names.has(tool.name)) throw new BadRequest('tools: Tool names must be unique.');
    names.add(tool.name);
    return tool;
  });
}

function parseChoice(raw: unknown, names: string[]): ToolChoice {
  if (raw === undefined || raw === null) return 'auto';
  const type = isObject(raw) ? raw.type : undefined;
  if (type === 'auto') return 'auto';
  if (type === 'none') return 'none';
  if (type === 'any') return 'required';
  if (type === 'tool' && isObject(raw)) {
    if (typeof raw.name !== 'string') throw new BadRequest('tool_choice.tool.name: Field required');
    if (!names.includes(raw.name))
      throw new BadRequest(`tool_choice: Tool '${raw.name}' not found in the provided tools`);
    return { name: raw.name };
  }
  throw new BadRequest(
    "tool_choice: Input tag found using 'type' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'",
  );
}

function blocksOf(content: unknown, at: string): Block[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw new BadRequest(`${at}.content: Input should be a valid list`);
  return content.map((block, j) => {
    if (!isObject(block) || typeof block.type !== 'string')
      throw new BadRequest(`${at}.content.${j}: Input should be a valid dictionary with a 'type'`);
    return block as Block;
  });
}

function checkBlock(block: Block, role: string, where: string): void {
  switch (block.type) {
    case 'text':
      if (typeof block.text !== 'string') throw new BadRequest(`${where}.text: Field required`);
      return;
    case 'tool_use':
      if (role !== 'assistant')
        throw new BadRequest(`${where}: tool_use blocks can only appear in assistant messages`);
      if (typeof block.id !== 'string' || !block.id) throw new BadRequest(`${where}.id: Field required`);
      if (typeof block.name !== 'string') throw new BadRequest(`${where}.name: Field required`);
      if (!isObject(block.input)) throw new BadRequest(`${where}.input: Input should be a valid dictionary`);
      return;
    case 'tool_result': {
      if (role !== 'user')
        throw new BadRequest(`${where}: tool_result blocks can only appear in user messages`);
      if (typeof block.tool_use_id !== 'string') throw new BadRequest(`${where}.tool_use_id: Field required`);
      const content = block.content;
      if (content !== undefined && typeof content !== 'string' && !Array.isArray(content))
        throw new BadRequest(`${where}.content: Input should be a valid string or list`);
      if (Array.isArray(content)) blocksOf(content, where);
      if (block.is_error !== undefined && typeof block.is_error !== 'boolean')
        throw new BadRequest(`${where}.is_error: Input should be a valid boolean`);
      return;
    }
  }
}

const hasToolBlocks = (messages: unknown[]) =>
  messages.some(
    (m) =>
      isObject(m) &&
      Array.isArray(m.content) &&
      m.content.some((b) => isObject(b) && (b.type === 'tool_use' || b.type === 'tool_result')),
  );

/**
 * The tool-using parts of a Messages request, checked as the API checks them (400s with its
 * wording): the tools, tool_choice, the blocks of each message, and that each tool_use is answered
 * by a tool_result in the next message and each tool_result answers one.
 */
export function anthropicToolParts(body: Record<string, unknown>, messages: unknown[]): ToolRequestParts {
  const tools = parseTools(body.tools);
  const names = tools.map((t) => String(t.name));
  const toolMode = tools.length > 0;
  const checked = toolMode || hasToolBlocks(messages);
  if (checked && tools.length === 0)
    throw new BadRequest('Requests which include `tool_use` or `tool_result` blocks must define tools.');
  const choice = toolMode ? parseChoice(body.tool_choice, names) : 'auto';

  const turns: PastTurn[] = [];
  const notes: string[] = [];
  const segments: PromptSegment[] = [];
  for (const tool of tools) {
    segments.push({ text: JSON.stringify(withoutCacheControl(tool)), marked: isObject(tool.cache_control) });
  }
  if (typeof body.system === 'string') segments.push({ text: body.system });
  else if (Array.isArray(body.system)) {
    for (const block of body.system)
      segments.push({
        text: textOf([block]),
        marked: isObject(block) && isObject(block.cache_control),
      });
  }
  let firstUser: string | undefined;
  let pending = new Map<string, PastCall>();
  let pendingAt = -1;
  for (const [i, message] of messages.entries()) {
    const at = `messages.${i}`;
    if (!isObject(message)) {
      if (checked) throw new BadRequest(`${at}: Input should be a valid dictionary`);
      continue;
    }
    const role = message.role;
    if (checked && role !== 'user' && role !== 'assistant')
      throw new BadRequest(`${at}.role: Input should be 'user' or 'assistant'`);
    let blocks: Block[];
    try {
      blocks = blocksOf(message.content, at);
    } catch (error) {
      if (checked) throw error;
      blocks = [];
    }
    for (const [j, block] of blocks.entries()) {
      if (checked) checkBlock(block, String(role), `${at}.content.${j}`);
      segments.push({
        text: `${String(role)}:${JSON.stringify(withoutCacheControl(block))}`,
        marked: isObject(block.cache_control),
      });
    }
    if (!checked) {
      if (role === 'user') firstUser ??= textOf(message.content);
      continue;
    }
    const answered = new Set<string>();
    if (role === 'user') {
      for (const [j, block] of blocks.entries()) {
        if (block.type !== 'tool_result') continue;
        const id = String(block.tool_use_id);
        const call = pendingAt === i - 1 ? pending.get(id) : undefined;
        if (!call)
          throw new BadRequest(
            `${at}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
          );
        call.result = { ok: block.is_error !== true, content: textOf(block.content) };
        answered.add(id);
      }
      const text = blocks
        .filter((b) => b.type === 'text')
        .map((b) => String(b.text))
        .join('\n');
      if (firstUser === undefined) firstUser = text;
      else if (text) notes.push(text);
    }
    const missing = [...pending.keys()].filter((id) => !answered.has(id));
    if (pendingAt === i - 1 && missing.length > 0) {
      throw new BadRequest(
        `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
      );
    }
    pending = new Map();
    if (role === 'assistant') {
      const calls = blocks
        .filter((b) => b.type === 'tool_use')
        .map((b): PastCall => {
          const input = b.input as Record<string, unknown>;
          return { id: String(b.id), name: String(b.name), input, arguments: JSON.stringify(input) };
        });
      const text = blocks
        .filter((b) => b.type === 'text')
        .map((b) => String(b.text))
        .join('');
      turns.push({ text, calls });
      for (const call of calls) pending.set(call.id, call);
      pendingAt = i;
    }
  }
  if (pending.size > 0) {
    throw new BadRequest(
      `messages.${messages.length}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${[...pending.keys()].join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
    );
  }
  const marked = segments.some((s) => s.marked);
  return {
    firstUser: firstUser ?? '',
    ...(toolMode ? { conversation: { protocol: 'anthropic', tools: names, choice, turns, notes } } : {}),
    ...(toolMode || marked ? { cacheSegments: segments } : {}),
  };
}
