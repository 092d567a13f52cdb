import { answerFor, malformedAnswer } from './agents.js';
import type { PromptInfo } from './prompt.js';
import type { PromptCache } from './prompt-cache.js';
import type { Completion, CompletionToolCall } from './protocols.js';
import type { SimRequest } from './request.js';
import type { Fault, Scenario } from './scenario.js';
import { toolTurnFor } from './tool-agents.js';
import type { PlannedCall } from './tool-history.js';

/** Chunk sizes in characters, cycled: uneven, like a model's tokens. */
const CHUNK_SIZES = [4, 7, 3, 6, 5, 8, 2];

/** A text in stream deltas: of `fixedSize` characters, or uneven. */
export function chunksOf(text: string, fixedSize?: number): string[] {
  const chars = Array.from(text);
  const out: string[] = [];
  for (let at = 0, i = 0; at < chars.length; i++) {
    const size = fixedSize ?? CHUNK_SIZES[i % CHUNK_SIZES.length]!;
    out.push(chars.slice(at, at + size).join(''));
    at += size;
  }
  return out;
}

/** A coder answer grown to about `bytes` with notes before its JSON (which stays as it was). */
function padded(text: string, bytes: number): string {
  const line = 'Simulated coder note: padding this answer to the requested size for a load test.\n';
  const missing = bytes - Buffer.byteLength(text);
  return missing > 0 ? `${line.repeat(Math.ceil(missing / line.length))}\n${text}` : text;
}

const tokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

/** A tool call's arguments in several pieces, as a model streams them (at most about a dozen). */
export function argumentPieces(json: string, fixedSize?: number): string[] {
  const chars = Array.from(json);
  if (chars.length < 2) return [json];
  const size = fixedSize ?? Math.max(8, Math.ceil(chars.length / 12));
  const count = Math.max(2, Math.ceil(chars.length / size));
  const step = Math.ceil(chars.length / count);
  const out: string[] = [];
  for (let at = 0; at < chars.length; at += step) out.push(chars.slice(at, at + step).join(''));
  return out;
}

/** The calls of a turn as the wire carries them; raw (non-JSON) arguments only where the API allows them. */
function wireCalls(calls: PlannedCall[], openai: boolean, served: number): CompletionToolCall[] {
  const prefix = openai ? 'call_sim' : 'toolu_sim';
  return calls.map((call, i) => ({
    id: `${prefix}${served.toString(36).padStart(6, '0')}${i.toString(36)}`,
    name: call.name,
    arguments: openai && call.rawArguments !== undefined ? call.rawArguments : JSON.stringify(call.input),
  }));
}

export interface CompletionParams {
  sim: SimRequest;
  info: PromptInfo;
  scenario: Scenario;
  fault: Fault | undefined;
  /** The server's answer count: ids are made of it. */
  served: number;
  openai: boolean;
  runKey: string;
  promptCache: PromptCache;
}

/**
 * The answer to one request: the scripted agent's text (and, with tools, its calls), shaped by
 * the scenario's fault and max_tokens, with its usage (cache tokens for cached prompts).
 */
export function buildCompletion({
  sim,
  info,
  scenario,
  fault,
  served,
  openai,
  runKey,
  promptCache,
}: CompletionParams): Completion {
  let text: string;
  let calls: PlannedCall[] = [];
  if (fault?.kind === 'malformed') text = malformedAnswer(info);
  else if (sim.tools) ({ text, calls } = toolTurnFor(info, scenario, sim.tools));
  else text = answerFor(info, scenario);
  if (info.agent === 'coder' && scenario.coderBytes) text = padded(text, scenario.coderBytes);
  if (fault?.kind === 'huge') {
    text = '`'.repeat(fault.bytes);
    calls = [];
  }
  let toolCalls = wireCalls(calls, openai, served);
  let stop: Completion['stop'] = toolCalls.length > 0 ? 'tool_use' : 'end';
  if (fault?.kind !== 'huge' && sim.maxTokens !== undefined && text.length > sim.maxTokens * 4) {
    text = Array.from(text)
      .slice(0, sim.maxTokens * 4)
      .join('');
    toolCalls = [];
    stop = 'max_tokens';
  } else if (sim.maxTokens !== undefined && toolCalls.length > 0) {
    // Calls that do not fit in max_tokens are left out whole; the stop says why.
    const budget = sim.maxTokens * 4;
    let used = text.length;
    const fitting = toolCalls.filter((call) => {
      used += call.arguments.length;
      return used <= budget;
    });
    if (fitting.length < toolCalls.length) {
      toolCalls = fitting;
      stop = 'max_tokens';
    }
  }
  const completion: Completion = {
    id: `${openai ? 'chatcmpl-sim' : 'msg_sim'}_${served.toString(36).padStart(6, '0')}`,
    model: sim.model,
    text,
    stop,
    inputTokens: tokens(sim.system + sim.prompt),
    outputTokens: tokens(text + toolCalls.map((call) => call.arguments).join('')),
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
  };
  if (sim.cacheSegments) {
    const usage = openai
      ? promptCache.openAi(runKey, sim.cacheSegments)
      : promptCache.anthropic(runKey, sim.cacheSegments);
    const total = Math.max(1, Math.ceil(usage.totalChars / 4));
    const read = Math.min(total, Math.floor(usage.readChars / 4));
    const written = Math.min(total - read, Math.floor(usage.writeChars / 4));
    // Anthropic's input_tokens leaves out what the cache served or stored; OpenAI's prompt_tokens counts it.
    completion.inputTokens = openai ? total : total - read - written;
    completion.cache = { readTokens: read, writeTokens: written };
  }
  return completion;
}
