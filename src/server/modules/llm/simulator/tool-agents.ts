import { GENERIC_ANSWER, plannerAnswer, reviewerAnswer } from './agents.js';
import { bigEditTurn } from './big-edit.js';
import { namesOf } from './plan.js';
import type { PromptInfo } from './prompt.js';
import { hasToolFault, type Scenario } from './scenario.js';
import { coderTurn } from './tool-coder-turn.js';
import type { ToolConversation } from './tool-conversation.js';
import {
  callsOf,
  field,
  listedPaths,
  type PlannedCall,
  READ_ONLY,
  succeeded,
  type ToolTurn,
} from './tool-history.js';

/**
 * The simulated agents in a tool-using conversation. Each turn is decided from the conversation
 * so far (its first user message, the calls made and their results), so the same conversation
 * always gets the same answer. The planner and the reviewer look once with a read-only tool, then
 * give the JSON answer the one-shot agents give; the coder works its step through the tools.
 */
export function toolTurnFor(info: PromptInfo, scenario: Scenario, conversation: ToolConversation): ToolTurn {
  const answer = () => {
    switch (info.agent) {
      case 'planner':
        return plannerAnswer(info);
      case 'reviewer':
        return reviewerAnswer(info, scenario);
      default:
        return undefined;
    }
  };
  if (info.agent === undefined) return { text: GENERIC_ANSWER, calls: [] };
  // tool_choice none: the model answers in prose (the loop's last word to an answer agent).
  if (conversation.choice === 'none') {
    return { text: answer() ?? 'Simulated coder: out of tool calls, so stopping here.', calls: [] };
  }
  const misbehaving = misbehaviour(info, scenario, conversation);
  if (misbehaving) return misbehaving;
  if (info.agent === 'coder') {
    return scenario.bigEdit
      ? bigEditTurn(scenario.bigEdit, conversation)
      : coderTurn(info, scenario, conversation);
  }
  return answerAgentTurn(info, conversation, answer() ?? '');
}

/** Planner: a look at the files; reviewer: a read of the first changed file. Then the answer. */
function answerAgentTurn(info: PromptInfo, conversation: ToolConversation, answer: string): ToolTurn {
  const looked = callsOf(conversation).some((call) => READ_ONLY.includes(call.name));
  const can = (name: string) => conversation.tools.includes(name);
  if (looked || conversation.turns.length >= 3) return { text: answer, calls: [] };
  const changed = info.changedFiles[0];
  if (info.agent === 'reviewer' && changed && can('read_file')) {
    return {
      text: `Simulated reviewer: reading ${changed} before judging the change.`,
      calls: [{ name: 'read_file', input: { path: changed } }],
    };
  }
  if (can('list_files')) {
    return {
      text: `Simulated ${info.agent}: looking at the repository's files first.`,
      calls: [{ name: 'list_files', input: {} }],
    };
  }
  return { text: answer, calls: [] };
}

/** Tool names no declaration uses: what a confused model calls. */
const UNKNOWN_TOOLS = ['open_file', 'list_directory', 'run_tests', 'view_file'];

function unknownTool(conversation: ToolConversation): string {
  return UNKNOWN_TOOLS.find((name) => !conversation.tools.includes(name)) ?? 'no_such_tool';
}

/** The scenario's tool misbehaviour for this agent and turn, if it has one. */
function misbehaviour(
  info: PromptInfo,
  scenario: Scenario,
  conversation: ToolConversation,
): ToolTurn | undefined {
  const agent = info.agent;
  const turn = conversation.turns.length;
  const target = namesOf(info.task).mainFile;
  if (hasToolFault(scenario, 'bad-calls', agent)) {
    const bad: PlannedCall[] = [
      { name: unknownTool(conversation), input: { path: target } },
      // Unknown key, and the path missing.
      { name: 'read_file', input: { file: target } },
      conversation.protocol === 'openai'
        ? { name: 'read_file', input: {}, rawArguments: `{"path": "${target}"` }
        : { name: 'search', input: { pattern: '' } },
    ];
    return { text: `Simulated ${agent}: trying to look at ${target}.`, calls: [bad[turn % bad.length]!] };
  }
  if (hasToolFault(scenario, 'tool-error', agent) && turn === 0) {
    return {
      text: `Simulated ${agent}: opening the project tree first.`,
      calls: [{ name: unknownTool(conversation), input: { path: '.' } }],
    };
  }
  if (hasToolFault(scenario, 'loop', agent)) return loopTurn(info, conversation);
  return undefined;
}

/** `loop@…`: valid read-only calls for ever — list, read a listed file, search, again. */
function loopTurn(info: PromptInfo, conversation: ToolConversation): ToolTurn {
  const calls = callsOf(conversation);
  const files = [
    ...new Set(
      calls
        .filter((c) => c.name === 'list_files' && succeeded(c))
        .flatMap((c) => listedPaths(c.result!.content)),
    ),
  ].sort();
  const can = (name: string) => conversation.tools.includes(name);
  const turn = conversation.turns.length;
  const reads = calls.filter((c) => c.name === 'read_file' && field(c, 'path')).length;
  let call: PlannedCall = { name: 'list_files', input: {} };
  if (turn % 3 === 1 && files.length > 0 && can('read_file'))
    call = { name: 'read_file', input: { path: files[reads % files.length]! } };
  else if (turn % 3 === 2 && can('search'))
    call = { name: 'search', input: { pattern: namesOf(info.task).fn, fixed: true } };
  return { text: `Simulated ${info.agent}: looking a little further before going on.`, calls: [call] };
}
