import { GENERIC_ANSWER, malformedAnswer } from './agents.js';
import { engineCoderTurn } from './engine-coder.js';
import { type CoderEngine, engineMarked, engineStepText } from './engine-prompts.js';
import { type PromptInfo, parsePrompt } from './prompt.js';
import type { PromptCache } from './prompt-cache.js';
import type { Completion, CompletionToolCall } from './protocols.js';
import type { SimRequest } from './request.js';
import type { Fault, Scenario } from './scenario.js';
import type { ToolTurn } from './tool-history.js';

/** Which wire an engine request came by: Anthropic Messages (Claude Code) or OpenAI Responses (Codex). */
export type EngineWire = 'anthropic' | 'responses';

/** An AutoCoder coder step an external engine asks about: which engine, and the step's text. */
export interface EngineStep {
  engine: CoderEngine;
  /** The step text (from `Task title:` on), for parsePrompt and the scenario marker. */
  prompt: string;
  info: PromptInfo;
}

/**
 * Whether a request is an engine's turn of an AutoCoder coder step: AutoCoder's marker
 * (`# Role: coder (engine: …)`) in the system prompt (Claude Code) or the prompt message (Codex),
 * and tools declared. Anything else an engine sends (a title, a summary) is not a step.
 */
export function engineStepOf(sim: SimRequest): EngineStep | undefined {
  if (!sim.tools) return undefined;
  const engine = engineMarked(sim.system) ?? engineMarked(sim.prompt);
  if (!engine) return undefined;
  const prompt = engineStepText(sim.prompt);
  return { engine, prompt, info: parsePrompt('# Role: coder', prompt) };
}

const tokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

export interface EngineCompletionParams {
  sim: SimRequest;
  /** The step, or undefined for an engine's request that is not one (answered with a short text). */
  step: EngineStep | undefined;
  wire: EngineWire;
  scenario: Scenario;
  fault: Fault | undefined;
  served: number;
  runKey: string;
  promptCache: PromptCache;
}

/**
 * The answer to an engine's request: the step's next turn (text and tool calls), shaped by the
 * scenario's fault and max_tokens, with its usage (cache tokens as the wire reports them).
 */
export function engineCompletion({
  sim,
  step,
  wire,
  scenario,
  fault,
  served,
  runKey,
  promptCache,
}: EngineCompletionParams): Completion {
  const serial = served.toString(36).padStart(6, '0');
  let turn: ToolTurn;
  if (!step) turn = { text: GENERIC_ANSWER, calls: [] };
  else if (fault?.kind === 'malformed') turn = { text: malformedAnswer(step.info), calls: [] };
  else if (fault?.kind === 'huge') turn = { text: '`'.repeat(fault.bytes), calls: [] };
  else turn = engineCoderTurn(step.engine, step.info, scenario, sim.tools!);

  const prefix = wire === 'responses' ? 'call_sim' : 'toolu_sim';
  let toolCalls: CompletionToolCall[] = turn.calls.map((call, i) => ({
    id: `${prefix}${serial}${i.toString(36)}`,
    name: call.name,
    arguments: JSON.stringify(call.input),
    ...(call.namespace ? { namespace: call.namespace } : {}),
  }));
  let text = turn.text;
  let stop: Completion['stop'] = toolCalls.length > 0 ? 'tool_use' : 'end';
  const budget = sim.maxTokens === undefined ? undefined : sim.maxTokens * 4;
  if (fault?.kind !== 'huge' && budget !== undefined) {
    if (text.length > budget) {
      text = Array.from(text).slice(0, budget).join('');
      toolCalls = [];
      stop = 'max_tokens';
    } else {
      // Calls that do not fit are left out whole; the stop says why.
      const fitting: CompletionToolCall[] = [];
      let used = text.length;
      for (const call of toolCalls) {
        used += call.arguments.length;
        if (used <= budget) fitting.push(call);
      }
      if (fitting.length < toolCalls.length) {
        toolCalls = fitting;
        stop = 'max_tokens';
      }
    }
  }
  const completion: Completion = {
    id: `${wire === 'responses' ? 'resp_sim' : 'msg_sim'}_${serial}`,
    model: sim.model,
    text,
    stop,
    inputTokens: tokens(sim.system + sim.prompt),
    outputTokens: tokens(text + toolCalls.map((call) => call.arguments).join('')),
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
  };
  if (sim.cacheSegments) {
    const usage =
      wire === 'responses'
        ? promptCache.openAi(runKey, sim.cacheSegments)
        : promptCache.anthropic(runKey, sim.cacheSegments);
    const total = Math.max(1, Math.ceil(usage.totalChars / 4));
    const read = Math.min(total, Math.floor(usage.readChars / 4));
    const written = Math.min(total - read, Math.floor(usage.writeChars / 4));
    // Anthropic's input_tokens leaves out what the cache served or stored; OpenAI's counts it.
    completion.inputTokens = wire === 'responses' ? total : total - read - written;
    completion.cache = { readTokens: read, writeTokens: written };
  }
  return completion;
}
