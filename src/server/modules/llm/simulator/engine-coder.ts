import type { CoderEngine } from './engine-prompts.js';
import type { PromptInfo } from './prompt.js';
import type { Scenario } from './scenario.js';
import { lookedAtPaths, targets } from './tool-coder.js';
import type { ToolConversation } from './tool-conversation.js';
import { type CallRecord, callsOf, type PlannedCall, type ToolTurn } from './tool-history.js';

/**
 * The simulated model behind an external coding agent (Claude Code, Codex) doing one of
 * AutoCoder's coder steps with the agent's own tools. Decided afresh from the conversation on
 * every turn, as the built-in tool coder is:
 * 1. with `engine-sleep=<s>`, a slow shell command first (`echo …; sleep <s>`);
 * 2. one shell command that prints, base64-encoded, each file the step may change (or that it is
 *    missing), so the step knows their exact content;
 * 3. the changes, all in one turn: Claude Code's `Write {file_path, content}`; for Codex an
 *    `exec_command` whose shell writes the file (a here-document, or base64 when the content
 *    does not end with a newline);
 * 4. a final message saying what was changed — or what failed (a write refused, say by a hook
 *    guarding a locked file): never retried.
 * Paths are relative to the engine's working directory, the task's worktree.
 */

/** The slow command of `engine-sleep` says so first. */
const SLOW_STEP = 'Simulated slow step';
/** Each file's state is printed between these lines. */
const PROBE = '@@autocoder-probe';
/** AutoCoder's lock tool, as Codex offers an MCP server's tools (a namespace of their own). */
const LOCK_TOOL = 'lock_file';
const LOCK_NAMESPACE = 'mcp__autocoder';
const firstLine = (text: string) => (text.trim().split('\n')[0] ?? '').slice(0, 200);
/** Past this many model turns the step ends, whatever it has seen: a bound against a misread conversation. */
const MAX_TURNS = 12;
/** Codex: polls of a command still running (write_stdin with nothing to write). */
const MAX_POLLS = 60;
/** Codex waits this long for a command before answering "still running" (its upper bound). */
const CODEX_YIELD_MS = 30_000;

const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
const QUOTED = String.raw`'(?:[^']|'\\'')*'`;
const unquote = (quoted: string) => quoted.slice(1, -1).replaceAll(`'\\''`, "'");
const dirOf = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');

/** The shell command that shows the files: `@@autocoder-probe file <path>`, its base64, `… end`; or `… missing <path>`. */
export function probeCommand(paths: readonly string[]): string {
  return [
    `for f in ${paths.map(shellQuote).join(' ')}; do`,
    `  if [ -f "$f" ]; then printf '${PROBE} file %s\\n' "$f"; base64 < "$f" | tr -d '\\n';`,
    `    printf '\\n${PROBE} end\\n'; else printf '${PROBE} missing %s\\n' "$f"; fi`,
    'done',
  ].join('\n');
}

/** What a probe's output says: a file's content, or undefined when it is missing; unknown files are absent. */
export function parseProbe(output: string): Map<string, string | undefined> {
  const text = output.replace(/\r/g, '');
  const files = new Map<string, string | undefined>();
  for (const m of text.matchAll(new RegExp(`^${PROBE} missing (.*)$`, 'gm'))) files.set(m[1]!, undefined);
  const found = new RegExp(`^${PROBE} file (.*)\\n([A-Za-z0-9+/=]*)\\n${PROBE} end$`, 'gm');
  for (const m of text.matchAll(found)) files.set(m[1]!, Buffer.from(m[2]!, 'base64').toString('utf8'));
  return files;
}

/**
 * A shell command that writes `content` to `path` exactly (making its directory): a here-document
 * with a quoted delimiter no line of the content equals, or, for content that does not end with a
 * newline, its base64.
 */
export function writeCommand(path: string, content: string): string {
  const dir = dirOf(path);
  const mkdir = dir ? `mkdir -p ${shellQuote(dir)} && ` : '';
  if (!content.endsWith('\n')) {
    const encoded = Buffer.from(content, 'utf8').toString('base64');
    return `${mkdir}printf '%s' '${encoded}' | base64 -d > ${shellQuote(path)}`;
  }
  const lines = new Set(content.split('\n'));
  let delimiter = 'AUTOCODER_EOF';
  for (let n = 1; lines.has(delimiter); n++) delimiter = `AUTOCODER_EOF_${n}`;
  return `${mkdir}cat > ${shellQuote(path)} <<'${delimiter}'\n${content}${delimiter}`;
}

const WRITTEN = new RegExp(
  `^(?:mkdir -p ${QUOTED} && )?(?:cat > (${QUOTED}) <<'AUTOCODER_EOF|printf '%s' '[A-Za-z0-9+/=]*' \\| base64 -d > (${QUOTED})$)`,
);

/** The file a Codex write command (of `writeCommand`) writes. */
export function writtenPath(command: string): string | undefined {
  const m = WRITTEN.exec(command);
  const quoted = m?.[1] ?? m?.[2];
  return quoted === undefined ? undefined : unquote(quoted);
}

/** How an engine's tools are spelled. */
interface EngineTools {
  shell(command: string, purpose: string, timeoutSeconds?: number): PlannedCall;
  /** The command of a shell call, when it is one. */
  commandOf(call: CallRecord): string | undefined;
  write(path: string, content: string): PlannedCall;
  /** The file a call writes, when it is a write. */
  writes(call: CallRecord): string | undefined;
  /**
   * Claude Code refuses a Write of an existing file its session has not read: the read call of
   * such a file, and the file a call read. Codex has no such rule.
   */
  read?(path: string): PlannedCall;
  reads?(call: CallRecord): string | undefined;
}

const stringField = (call: CallRecord, name: string) => {
  const value = call.input?.[name];
  return typeof value === 'string' ? value : undefined;
};

const CLAUDE_CODE: EngineTools = {
  shell: (command, description, timeoutSeconds) => ({
    name: 'Bash',
    input: {
      command,
      description,
      ...(timeoutSeconds ? { timeout: Math.min(600_000, timeoutSeconds * 1000) } : {}),
    },
  }),
  commandOf: (call) => (call.name === 'Bash' ? stringField(call, 'command') : undefined),
  write: (path, content) => ({ name: 'Write', input: { file_path: path, content } }),
  writes: (call) =>
    call.name === 'Write' || call.name === 'Edit' ? stringField(call, 'file_path') : undefined,
  read: (path) => ({ name: 'Read', input: { file_path: path } }),
  reads: (call) => (call.name === 'Read' ? stringField(call, 'file_path') : undefined),
};

const CODEX: EngineTools = {
  shell: (cmd) => ({ name: 'exec_command', input: { cmd, yield_time_ms: CODEX_YIELD_MS } }),
  commandOf: (call) => (call.name === 'exec_command' ? stringField(call, 'cmd') : undefined),
  write: (path, content) => ({
    name: 'exec_command',
    input: { cmd: writeCommand(path, content), yield_time_ms: CODEX_YIELD_MS },
  }),
  writes: (call) => {
    const cmd = call.name === 'exec_command' ? stringField(call, 'cmd') : undefined;
    return cmd === undefined ? undefined : writtenPath(cmd);
  },
};

/** A call's outcome as the engine reported it: its output, whether it worked, and (Codex) a session still running. */
interface Outcome {
  output: string;
  ok: boolean;
  running?: number;
}

/**
 * Codex's exec_command output: "Chunk ID …\nWall time …\nProcess exited with code N\n…\nOutput:\n…",
 * or "Process running with session ID N" when the command outlasts its yield time.
 */
function codexOutcomes(calls: readonly CallRecord[]): Map<number, Outcome> {
  const outcomes = new Map<number, Outcome>();
  const sessions = new Map<number, Outcome>();
  const settle = (outcome: Outcome, content: string) => {
    outcome.output += content;
    const exit = [...content.matchAll(/Process exited with code (-?\d+)/g)].at(-1);
    const session = /session ID (\d+)/i.exec(content);
    if (exit) {
      outcome.ok = exit[1] === '0';
      if (outcome.running !== undefined) sessions.delete(outcome.running);
      delete outcome.running;
    } else if (session) {
      outcome.running = Number(session[1]);
      sessions.set(outcome.running, outcome);
    }
  };
  for (const call of calls) {
    const content = call.result?.content ?? '';
    if (call.name === 'write_stdin') {
      const target = sessions.get(Number(call.input?.session_id));
      if (target) settle(target, content);
      continue;
    }
    const outcome: Outcome = { output: '', ok: false };
    outcomes.set(call.index, outcome);
    settle(outcome, content);
  }
  return outcomes;
}

function claudeOutcomes(calls: readonly CallRecord[]): Map<number, Outcome> {
  return new Map(
    calls.map((call) => [call.index, { output: call.result?.content ?? '', ok: call.result?.ok === true }]),
  );
}

/** The output of a failed call, in short: its first lines after Codex's header. */
function reasonOf(outcome: Outcome | undefined): string {
  const output = (outcome?.output ?? '').replace(/^[\s\S]*?\nOutput:\n/, '').trim();
  const short = output.split('\n').slice(0, 3).join(' ').slice(0, 300);
  return short || 'no output';
}

function stepName(info: PromptInfo): string {
  if (info.subtask) return `subtask ${info.subtask.index}/${info.subtask.total}`;
  if (info.fixIteration !== undefined) return `fix (iteration ${info.fixIteration})`;
  return 'the whole task';
}

const list = (items: readonly string[]) =>
  items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;

/** The files the step may change, before it knows which exist. */
function probedPaths(info: PromptInfo, scenario: Scenario): string[] {
  const paths = [...lookedAtPaths(info), ...targets(info, scenario, new Set()).map((t) => t.path)];
  return [...new Set(paths)];
}

/** The engine's next turn in an AutoCoder coder step. */
export function engineCoderTurn(
  engine: CoderEngine,
  info: PromptInfo,
  scenario: Scenario,
  conversation: ToolConversation,
): ToolTurn {
  const tools = engine === 'codex' ? CODEX : CLAUDE_CODE;
  const calls = callsOf(conversation);
  const outcomes = engine === 'codex' ? codexOutcomes(calls) : claudeOutcomes(calls);
  const can = (name: string) => conversation.tools.includes(name);
  const who = `Simulated coder (scripted, not AI; engine: ${engine})`;
  const heading = `${who}: ${stepName(info)} of "${info.task.title}".`;
  const finish = (text: string): ToolTurn => ({ text: `${heading} ${text}`, calls: [] });

  if (conversation.turns.length >= MAX_TURNS) return finish('Stopping here: the step took too many turns.');
  const shellTool = engine === 'codex' ? 'exec_command' : 'Bash';
  const writeTool = engine === 'codex' ? 'exec_command' : 'Write';
  if (!can(shellTool) || !can(writeTool))
    return finish(`Cannot do the step: the ${shellTool} and ${writeTool} tools are not offered.`);

  // Codex: a command still running is waited for.
  const polls = calls.filter((call) => call.name === 'write_stdin').length;
  const running = [...outcomes.values()].find((o) => o.running !== undefined)?.running;
  if (running !== undefined && polls < MAX_POLLS && can('write_stdin')) {
    return {
      text: '',
      calls: [
        { name: 'write_stdin', input: { session_id: running, chars: '', yield_time_ms: CODEX_YIELD_MS } },
      ],
    };
  }

  const seconds = scenario.engineSleepSeconds;
  const slept = calls.some((call) => tools.commandOf(call)?.includes(SLOW_STEP));
  if (seconds && !slept) {
    // Not a bare `sleep`: Claude Code refuses a command that starts with a sleep of 25 s or more.
    const command = `echo '${SLOW_STEP}: sleep ${seconds}' && sleep ${seconds}`;
    return {
      text: `${who}: a slow command first (sleep ${seconds}).`,
      calls: [tools.shell(command, `Wait ${seconds} seconds (a slow step, simulated)`, seconds + 60)],
    };
  }

  const paths = probedPaths(info, scenario);
  const probe = calls.find((call) => tools.commandOf(call)?.includes(PROBE));
  if (!probe) {
    return {
      text: `${who}: looking at ${list(paths)} first.`,
      calls: [tools.shell(probeCommand(paths), 'Show the files the step changes')],
    };
  }
  const probed = outcomes.get(probe.index);
  const seen = parseProbe(probed?.output ?? '');
  const unseen = paths.filter((path) => !seen.has(path));
  if (unseen.length > 0) return finish(`Could not look at ${list(unseen)}: ${reasonOf(probed)}.`);

  const writes = calls.filter((call) => tools.writes(call) !== undefined);
  if (writes.length === 0) {
    const existing = new Set([...seen].filter(([, content]) => content !== undefined).map(([path]) => path));
    const changes: PlannedCall[] = [];
    for (const target of targets(info, scenario, existing)) {
      const current = seen.has(target.path) ? seen.get(target.path) : undefined;
      const desired = target.desired(current);
      if (desired !== undefined && desired !== current) changes.push(tools.write(target.path, desired));
    }
    if (changes.length === 0) return finish('Nothing needed changing.');
    let written = changes.map((call) => tools.writes(asRecord(call))!);
    // Codex is told to lock each file with AutoCoder's tool before it writes it, when it has it.
    if (engine === 'codex' && can(LOCK_TOOL) && !scenario.engineNoLocks) {
      const asked = calls.filter((call) => call.name === LOCK_TOOL);
      if (asked.length === 0) {
        return {
          text: `${who}: locking ${list(written)} first.`,
          calls: written.map((path) => ({ name: LOCK_TOOL, namespace: LOCK_NAMESPACE, input: { path } })),
        };
      }
      const refused = asked.filter((call) => !/Locked \S+ for this step/.test(call.result?.content ?? ''));
      const held = new Set(refused.map((call) => stringField(call, 'path')));
      if (held.size > 0) {
        const kept = changes.filter((call) => !held.has(tools.writes(asRecord(call))));
        const reasons = refused.map(
          (call) => `${stringField(call, 'path')} (${firstLine(call.result?.content ?? '')})`,
        );
        if (kept.length === 0) return finish(`Left ${list(reasons)} alone: another agent holds it.`);
        changes.splice(0, changes.length, ...kept);
        written = changes.map((call) => tools.writes(asRecord(call))!);
      }
    }
    if (tools.read && tools.reads) {
      const read = new Set(calls.map((call) => tools.reads?.(call)).filter(Boolean));
      const unread = written.filter((path) => existing.has(path) && !read.has(path));
      if (unread.length > 0) {
        return { text: `${who}: reading ${list(unread)} before changing it.`, calls: unread.map(tools.read) };
      }
    }
    return { text: `${who}: writing ${list(written)}.`, calls: changes };
  }

  const changed: string[] = [];
  const failed: string[] = [];
  for (const call of writes) {
    const outcome = outcomes.get(call.index);
    const path = tools.writes(call)!;
    if (outcome?.ok) changed.push(path);
    else failed.push(`${path} (${reasonOf(outcome)})`);
  }
  const parts = [changed.length ? `Changed ${list(changed)}.` : 'Changed nothing.'];
  if (failed.length) parts.push(`Could not change ${list(failed)}.`);
  return finish(parts.join(' '));
}

/** A planned call seen as a call record (to read its path back). */
function asRecord(call: PlannedCall): CallRecord {
  return {
    id: '',
    name: call.name,
    input: call.input,
    arguments: JSON.stringify(call.input),
    index: -1,
    turn: -1,
  };
}
