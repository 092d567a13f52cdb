import type { ToolLimits } from './tool-types.js';

/** What one executor (one agent step) gives its tools. */
export interface ToolContext {
  /** The worktree's real path (links resolved). */
  rootReal: string;
  limits: ToolLimits;
  /** Files the agent has read in full in this step, by canonical path, with the version it saw. */
  readInFull: Map<string, string>;
  /** Called with the canonical path before a write, edit or delete touches the file. */
  beforeWrite(rel: string): Promise<void>;
  signal?: AbortSignal | undefined;
}

/** Numbered lines as read_file shows them: the number right-aligned, a tab, the line. */
export function numberedLine(lineNumber: number, width: number, text: string): string {
  return `${String(lineNumber).padStart(width)}\t${text}`;
}

export function numberWidth(lastLine: number): number {
  return Math.max(4, String(lastLine).length);
}

/** Lines of a decoded text, without a line for the final newline and without CRs of CRLF ends. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}

/** "1 line", "3 lines". */
export function plural(count: number, word: string, many = `${word}s`): string {
  return `${count} ${count === 1 ? word : many}`;
}
