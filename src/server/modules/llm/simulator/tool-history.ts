import type { PastCall, ToolConversation } from './tool-conversation.js';

/**
 * Reading a tool conversation back: what the simulated agent has done and learnt so far. Tool
 * outputs are read as AutoCoder's executor writes them (agent-tools/), leniently: another
 * executor's plain text still works.
 */

/** A tool call of the conversation, numbered in the order it was made. */
export interface CallRecord extends PastCall {
  /** Position among all calls of the conversation. */
  index: number;
  /** Which of the model's turns made it (0 = the first). */
  turn: number;
}

/** A call a simulated agent makes: its input as an object, or raw arguments text (a bad call). */
export interface PlannedCall {
  name: string;
  input: Record<string, unknown>;
  /** Sent instead of the input's JSON (OpenAI only: arguments that are not JSON). */
  rawArguments?: string;
  /** The tool's namespace (Responses API: an MCP server's tools, e.g. `mcp__autocoder`). */
  namespace?: string;
}

/** One answer of a simulated agent in a tool conversation: prose, then calls (none: the turn ends it). */
export interface ToolTurn {
  text: string;
  calls: PlannedCall[];
}

export const READ_ONLY = ['list_files', 'read_file', 'search'];

export function callsOf(conversation: ToolConversation): CallRecord[] {
  const out: CallRecord[] = [];
  for (const [turn, past] of conversation.turns.entries()) {
    for (const call of past.calls) out.push({ ...call, index: out.length, turn });
  }
  return out;
}

/** A call's string input field, if it has one. */
export function field(call: PastCall, name: string): string | undefined {
  const value = call.input?.[name];
  return typeof value === 'string' ? value : undefined;
}

export const succeeded = (call: PastCall) => call.result?.ok === true;

/** The paths a list_files output names (its notes and "No files…" left out). */
export function listedPaths(output: string): string[] {
  if (/^No files\b/i.test(output.trim())) return [];
  return output
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('['));
}

/** What one read_file output shows of a file. */
export interface ReadPiece {
  rows: Map<number, string>;
  /** The file's line count, when the output tells it. */
  total?: number;
}

const NUMBERED = /^ *(\d+)\t(.*)$/;

/**
 * The lines a read_file output shows, with read_file's "  12\t" prefixes taken off, and the
 * file's length from its notes ("[Lines 5–9 of 120.]", "[Stopped at line 2000 of 6000 …]"). An
 * output without numbered lines is taken as the file's plain text.
 */
export function parseRead(output: string): ReadPiece {
  if (output.trim() === '(empty file)') return { rows: new Map(), total: 0 };
  const lines = output.split('\n');
  const rows = new Map<number, string>();
  let at = 0;
  for (; at < lines.length; at++) {
    const row = NUMBERED.exec(lines[at]!);
    if (!row) break;
    rows.set(Number(row[1]), row[2]!);
  }
  if (rows.size === 0) {
    const plain = output.replace(/\n$/, '').split('\n');
    return { rows: new Map(plain.map((line, i) => [i + 1, line])), total: plain.length };
  }
  const notes = lines.slice(at).join('\n');
  const of = /\bof (\d+)\b/.exec(notes);
  const last = Math.max(...rows.keys());
  return { rows, total: of ? Number(of[1]) : last };
}

/** What the conversation has shown of one file since it was last changed or an edit of it failed. */
export class FileView {
  readonly rows = new Map<number, string>();
  total: number | undefined;

  add(piece: ReadPiece): void {
    for (const [n, line] of piece.rows) this.rows.set(n, line);
    if (piece.total !== undefined) this.total = piece.total;
  }

  /** The first line not yet seen, or undefined when the whole file was. */
  nextMissing(): number | undefined {
    if (this.total === undefined) return 1;
    for (let n = 1; n <= this.total; n++) if (!this.rows.has(n)) return n;
    return undefined;
  }

  /** The whole text (a final newline assumed), once every line was seen. */
  content(): string | undefined {
    if (this.nextMissing() !== undefined || this.total === undefined) return undefined;
    const lines = Array.from({ length: this.total }, (_, i) => this.rows.get(i + 1) ?? '');
    return this.total === 0 ? '' : `${lines.join('\n')}\n`;
  }
}

/**
 * Whether a run_check result says the check passed: its first line says "passed" and nothing
 * failed ("The check passed after 2.1 s." — "The check failed, exit 1 after …").
 */
export function checkPassed(call: PastCall): boolean {
  if (!call.result?.ok) return false;
  const first = call.result.content.trimStart().split('\n')[0] ?? '';
  return /\bpass(?:ed|es)?\b/i.test(first) && !/\bfail/i.test(first);
}

/** Prose before calls: "listing src and reading src/a.ts". */
export function describeCalls(calls: readonly PlannedCall[]): string {
  const parts = calls.map((call) => {
    const path = typeof call.input.path === 'string' ? call.input.path : undefined;
    switch (call.name) {
      case 'list_files':
        return `listing ${path ?? (typeof call.input.glob === 'string' ? call.input.glob : 'the repository')}`;
      case 'read_file':
        return typeof call.input.startLine === 'number'
          ? `reading ${path} from line ${call.input.startLine}`
          : `reading ${path}`;
      case 'search':
        return `searching for ${JSON.stringify(call.input.pattern)}`;
      case 'edit_file':
        return `editing ${path}`;
      case 'write_file':
        return `writing ${path}`;
      case 'run_check':
        return "running the project's check";
      default:
        return `calling ${call.name}`;
    }
  });
  if (parts.length <= 1) return parts.join('');
  return `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}
