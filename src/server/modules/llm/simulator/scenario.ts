import { AGENT_TYPES, type AgentType } from '@/contracts/pipeline.js';

/** Which agent a fault targets; `any` matches every agent (and requests with no recognisable role). */
export type FaultTarget = AgentType | 'any';

export const HTTP_ERROR_STATUSES = [400, 401, 403, 404, 429, 500, 503, 529] as const;
export const STREAM_ERROR_STATUSES = [429, 500, 529] as const;

export type Fault = { agent: FaultTarget; times: number; source: string } & (
  | { kind: 'error'; status: (typeof HTTP_ERROR_STATUSES)[number] }
  | { kind: 'stream-error'; status: (typeof STREAM_ERROR_STATUSES)[number] }
  | { kind: 'malformed' }
  | { kind: 'drop' }
  /** An answer of `bytes` backticks in large chunks, ignoring max_tokens: a runaway model. */
  | { kind: 'huge'; bytes: number }
);

/**
 * How a simulated agent misbehaves in a tool-using conversation (requests with `tools`), decided
 * from the conversation itself, so each step (each conversation) plays it again:
 * - `tool-error`: its first call is to a tool that does not exist; then it carries on.
 * - `edit-miss`: its first edit_file's oldText is not in the file (copied with read_file's line
 *   numbers); then it reads the file again and retries. Only the coder edits.
 * - `loop`: it never ends its step: valid read-only calls, turn after turn.
 * - `bad-calls`: every call is bad (an unknown tool or invalid arguments), turn after turn.
 */
export const TOOL_FAULT_KINDS = ['tool-error', 'edit-miss', 'loop', 'bad-calls'] as const;
export type ToolFaultKind = (typeof TOOL_FAULT_KINDS)[number];
export interface ToolFault {
  kind: ToolFaultKind;
  agent: FaultTarget;
  source: string;
}

export interface Scenario {
  /** The reviewer fails while the prompt's review iteration is below this. */
  reviewFails: number;
  /** Delay per streamed chunk, overriding the server's default. */
  slowMs?: number;
  /** Characters per streamed delta (`chunk=12`), instead of uneven model-like sizes. */
  chunkChars?: number;
  /** Pad each coder answer with notes up to about this many bytes (`coder-bytes=25000`). */
  coderBytes?: number;
  /**
   * A file the simulated coder creates when its fix prompt shows a failing repository check
   * (`check-fix=fixed.txt`): scripted, so a demo's check can fail until the "fix".
   */
  checkFix?: string;
  /**
   * A large existing file in which the tool-using coder changes one line in the middle
   * (`big-edit=src/big.ts`): read a line range, search, edit_file that line, check, finish.
   */
  bigEdit?: string;
  /**
   * An external coder engine (Claude Code, Codex) first runs a shell command that takes this many
   * seconds (`engine-sleep=30`: `… && sleep 30`), so a test can catch the engine in the middle of a step.
   */
  engineSleepSeconds?: number;
  /** An external engine ignores AutoCoder's `lock_file` tool (`engine-no-locks`), as an agent that does not ask would. */
  engineNoLocks?: boolean;
  /** Misbehaviours of a tool-using agent (`tool-error@coder`, …); absent when none. */
  toolFaults?: ToolFault[];
  /** In the order given: for one agent, the first unexhausted fault applies to its next call. */
  faults: Fault[];
  /** Directives that were not understood (ignored; returned so a caller can reject them). */
  invalid: string[];
}

const MAX_TIMES = 100;
const MAX_SLOW_MS = 60_000;
const MAX_ENGINE_SLEEP_SECONDS = 600;
const MAX_HUGE_BYTES = 64 * 1024 * 1024;
const AGENT = `(${[...AGENT_TYPES, 'any'].join('|')})`;
const TIMES = String.raw`(?:\s*[x*×]\s*(\d+))?`;
const STATUS_FAULT = new RegExp(`^(error|stream-error)\\s*=\\s*(\\d{3})\\s*@\\s*${AGENT}${TIMES}$`, 'i');
const PLAIN_FAULT = new RegExp(`^(malformed|drop)\\s*@\\s*${AGENT}${TIMES}$`, 'i');
const HUGE_FAULT = new RegExp(`^huge\\s*=\\s*(\\d+)\\s*@\\s*${AGENT}${TIMES}$`, 'i');
const NUMBER_SETTING = /^(review-fails|slow)\s*=\s*(\d+)$/i;
const ENGINE_SLEEP_SETTING = /^engine-sleep\s*=\s*(\d+)$/i;
/** Stream shapes for load tests: delta size and coder answer size. */
const SHAPE_SETTING = /^(chunk|coder-bytes)\s*=\s*(\d+)$/i;
const MAX_CHUNK_CHARS = 4096;
const MAX_CODER_BYTES = 4 * 1024 * 1024;
const CHECK_FIX_SETTING = /^check-fix\s*=\s*([\w.-]+(?:\/[\w.-]+)*)$/i;
const BIG_EDIT_SETTING = /^big-edit\s*=\s*([\w.-]+(?:\/[\w.-]+)*)$/i;
const TOOL_FAULT = new RegExp(`^(${TOOL_FAULT_KINDS.join('|')})\\s*@\\s*${AGENT}$`, 'i');
const PROMPT_MARKER = /\[simulate:\s*([^\]]*)\]/i;

function times(raw: string | undefined): number {
  return Math.min(MAX_TIMES, Math.max(1, raw ? Number(raw) : 1));
}

function includes<T extends number>(list: readonly T[], value: number): value is T {
  return (list as readonly number[]).includes(value);
}

function parseDirective(source: string, scenario: Scenario): boolean {
  const checkFix = CHECK_FIX_SETTING.exec(source);
  if (checkFix && !checkFix[1]!.split('/').includes('..')) {
    scenario.checkFix = checkFix[1]!;
    return true;
  }
  const bigEdit = BIG_EDIT_SETTING.exec(source);
  if (bigEdit && !bigEdit[1]!.split('/').includes('..')) {
    scenario.bigEdit = bigEdit[1]!;
    return true;
  }
  if (/^engine-no-locks$/i.test(source)) {
    scenario.engineNoLocks = true;
    return true;
  }
  const engineSleep = ENGINE_SLEEP_SETTING.exec(source);
  if (engineSleep) {
    scenario.engineSleepSeconds = Math.min(MAX_ENGINE_SLEEP_SECONDS, Number(engineSleep[1]));
    return true;
  }
  const toolFault = TOOL_FAULT.exec(source);
  if (toolFault) {
    scenario.toolFaults ??= [];
    scenario.toolFaults.push({
      kind: toolFault[1]!.toLowerCase() as ToolFaultKind,
      agent: toolFault[2]!.toLowerCase() as FaultTarget,
      source,
    });
    return true;
  }
  const shape = SHAPE_SETTING.exec(source);
  if (shape) {
    const value = Number(shape[2]);
    if (shape[1]!.toLowerCase() === 'chunk')
      scenario.chunkChars = Math.min(MAX_CHUNK_CHARS, Math.max(1, value));
    else scenario.coderBytes = Math.min(MAX_CODER_BYTES, value);
    return true;
  }
  const setting = NUMBER_SETTING.exec(source);
  if (setting) {
    const value = Number(setting[2]);
    if (setting[1]!.toLowerCase() === 'slow') scenario.slowMs = Math.min(MAX_SLOW_MS, value);
    else scenario.reviewFails = Math.min(MAX_TIMES, value);
    return true;
  }
  const status = STATUS_FAULT.exec(source);
  if (status) {
    const code = Number(status[2]);
    const agent = status[3]!.toLowerCase() as FaultTarget;
    const base = { agent, times: times(status[4]), source };
    if (status[1]!.toLowerCase() === 'error' && includes(HTTP_ERROR_STATUSES, code)) {
      scenario.faults.push({ ...base, kind: 'error', status: code });
      return true;
    }
    if (status[1]!.toLowerCase() === 'stream-error' && includes(STREAM_ERROR_STATUSES, code)) {
      scenario.faults.push({ ...base, kind: 'stream-error', status: code });
      return true;
    }
    return false;
  }
  const huge = HUGE_FAULT.exec(source);
  if (huge) {
    scenario.faults.push({
      kind: 'huge',
      bytes: Math.min(MAX_HUGE_BYTES, Number(huge[1])),
      agent: huge[2]!.toLowerCase() as FaultTarget,
      times: times(huge[3]),
      source,
    });
    return true;
  }
  const plain = PLAIN_FAULT.exec(source);
  if (plain) {
    const kind = plain[1]!.toLowerCase() as 'malformed' | 'drop';
    scenario.faults.push({
      kind,
      agent: plain[2]!.toLowerCase() as FaultTarget,
      times: times(plain[3]),
      source,
    });
    return true;
  }
  return false;
}

/**
 * Parses comma-separated simulator directives, e.g. `review-fails=2, error=429@coder x2, drop@reviewer, slow=50`,
 * `huge=2000000@coder` (an answer of that many backticks).
 *
 * Every directive, by kind:
 * - `review-fails=<n>`: the reviewer fails while the prompt's review iteration is below n.
 * - `error=<status>@<agent>[ xN]`: an HTTP error (400, 401, 403, 404, 429, 500, 503, 529) instead of an answer.
 * - `stream-error=<status>@<agent>[ xN]`: an `error` event a third into the stream (429, 500, 529).
 * - `malformed@<agent>[ xN]`: prose instead of the JSON (with tools: prose and no tool call).
 * - `drop@<agent>[ xN]`: the connection is cut a third into the stream.
 * - `huge=<bytes>@<agent>[ xN]`: an answer of that many backticks, whatever max_tokens says.
 * - `slow=<ms>`, `chunk=<chars>`, `coder-bytes=<bytes>`: the stream's pace, delta size, coder answer size.
 * - `check-fix=<path>`: the coder writes that file when a check it sees has failed (in a fix prompt, or
 *   from its own run_check), then (with tools) runs the check again.
 * Tool-using conversations (requests with `tools`) only; each applies to every step (conversation):
 * - `tool-error@<agent>`: the first call is to an unknown tool; then the agent carries on.
 * - `edit-miss@coder`: the first edit_file's oldText is not in the file; the coder re-reads and retries.
 * - `loop@<agent>`: the agent never ends its step, making valid read-only calls forever.
 * - `bad-calls@<agent>`: every call is bad (an unknown tool or invalid arguments), forever.
 * - `big-edit=<path>`: the coder changes one line in the middle of that existing (large) file, and nothing else.
 * External coder engines (Claude Code, Codex, run with the simulator as their model):
 * - `engine-sleep=<seconds>`: the step first runs `echo …; sleep <seconds>` (at most 600) through the engine's shell
 *   tool (Bash / exec_command), then does its work: a step long enough to cancel in the middle.
 * - Codex calls AutoCoder's `lock_file` tool (MCP) on each file before it writes it, when offered, and leaves a file
 *   it cannot lock; `engine-no-locks`: it does not ask (the pipeline's commit then waits for the holder).
 * - `error=<status>@coder` and the other faults above apply to an engine's requests as the coder's.
 * `<agent>` is planner, coder, reviewer or any; `xN` repeats a fault for the first N calls of a run.
 * Never throws: what it does not understand lands in `invalid`.
 */
export function parseScenario(text: string | null | undefined): Scenario {
  const scenario: Scenario = { reviewFails: 0, faults: [], invalid: [] };
  for (const part of (text ?? '').split(/[,;]/)) {
    const source = part.trim();
    if (source && !parseDirective(source, scenario)) scenario.invalid.push(source);
  }
  return scenario;
}

/** Whether `agent` suffers the tool misbehaviour `kind` in this scenario. */
export function hasToolFault(scenario: Scenario, kind: ToolFaultKind, agent: AgentType | undefined): boolean {
  return (scenario.toolFaults ?? []).some(
    (fault) => fault.kind === kind && (fault.agent === 'any' || fault.agent === agent),
  );
}

/** The directives of a `[simulate: …]` marker in a prompt, if it has one. */
export function scenarioFromPrompt(prompt: string): string | undefined {
  return PROMPT_MARKER.exec(prompt)?.[1]?.trim();
}

/**
 * Counts, per run, how often each fault has fired, so "the first K calls" holds across the calls of a run and
 * runs do not disturb each other. Keeps the most recent `maxRuns` runs.
 */
export class FaultLedger {
  private readonly runs = new Map<string, Map<string, number>>();

  constructor(private readonly maxRuns = 1000) {}

  /** The fault this call of `agent` must suffer, recording that it fired; undefined for a normal answer. */
  take(runKey: string, agent: AgentType | undefined, faults: readonly Fault[]): Fault | undefined {
    let fired = this.runs.get(runKey);
    for (const [index, fault] of faults.entries()) {
      if (fault.agent !== 'any' && fault.agent !== agent) continue;
      const key = `${index}:${fault.source}`;
      const count = fired?.get(key) ?? 0;
      if (count >= fault.times) continue;
      if (!fired) fired = this.track(runKey);
      fired.set(key, count + 1);
      return fault;
    }
    return undefined;
  }

  private track(runKey: string): Map<string, number> {
    const fired = new Map<string, number>();
    this.runs.set(runKey, fired);
    if (this.runs.size > this.maxRuns) {
      const oldest = this.runs.keys().next().value;
      if (oldest !== undefined) this.runs.delete(oldest);
    }
    return fired;
  }
}
