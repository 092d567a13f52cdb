import path from 'node:path';
import { shownInput } from '../agent-tools/agent-loop.js';
import type { FileChangeSummary, ToolResult } from '../agent-tools/tool-types.js';

/** Longest piece of an engine's tool output shown in a summary line. */
const SUMMARY_CHARS = 200;

/** A call's input as the timeline shows it: long strings cut, the run's secrets removed. */
export function shownCleanInput(
  input: Record<string, unknown>,
  clean: (text: string) => string,
): Record<string, unknown> {
  return JSON.parse(clean(JSON.stringify(shownInput(input)))) as Record<string, unknown>;
}

/** A path an engine gave, relative to the worktree when inside it; undefined when it is not a string. */
export function worktreeRelative(worktree: string, given: unknown): string | undefined {
  if (typeof given !== 'string' || given === '') return undefined;
  const absolute = path.resolve(worktree, given);
  const relative = path.relative(worktree, absolute);
  return relative.split(path.sep).join('/');
}

/** Inside the worktree, outside its .git. */
export function insideWorktree(relative: string): boolean {
  return (
    relative !== '' &&
    !relative.startsWith('../') &&
    relative !== '..' &&
    !path.isAbsolute(relative) &&
    relative !== '.git' &&
    !relative.startsWith('.git/')
  );
}

function lineCount(text: unknown): number {
  if (typeof text !== 'string' || text === '') return 0;
  return text.replace(/\n$/, '').split('\n').length;
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > SUMMARY_CHARS ? `${line.slice(0, SUMMARY_CHARS)}…` : line;
}

/** The text of a Claude Code tool result's content (a string or text blocks). */
export function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((block) =>
        typeof block === 'object' && block !== null && typeof (block as { text?: unknown }).text === 'string'
          ? (block as { text: string }).text
          : '',
      )
      .join('\n');
  }
  return '';
}

/**
 * The input of a Claude Code editing call in the built-in tools' terms (for the hunk the timeline
 * shows): `Write` is `write_file`, `Edit` is `edit_file`.
 */
export function asBuiltInCall(
  tool: string,
  input: Record<string, unknown>,
  report?: unknown,
): { tool: string; input: Record<string, unknown> } {
  const hunks = (report as { structuredPatch?: unknown } | null | undefined)?.structuredPatch;
  if (tool === 'Write' && Array.isArray(hunks) && hunks.length > 0) {
    // An overwrite: its hunk is what Claude Code's patch removed and added, not the whole file.
    const lines = hunks.flatMap((hunk) => {
      const inner = (hunk as { lines?: unknown })?.lines;
      return Array.isArray(inner) ? inner.filter((line): line is string => typeof line === 'string') : [];
    });
    const side = (mark: string) =>
      lines
        .filter((line) => line.startsWith(mark))
        .map((line) => line.slice(1))
        .join('\n');
    return { tool: 'edit_file', input: { oldText: side('-'), newText: side('+') } };
  }
  if (tool === 'Write') return { tool: 'write_file', input: { content: input.content } };
  if (tool === 'Edit')
    return { tool: 'edit_file', input: { oldText: input.old_string, newText: input.new_string } };
  return { tool, input };
}

/**
 * Lines added and removed by a Claude Code edit, from the `structuredPatch` it reports with the
 * result (`tool_use_result`): hunks whose `lines` start with `+`, `-` or a space.
 */
export function patchCounts(report: unknown): { added: number; removed: number } | undefined {
  const hunks = (report as { structuredPatch?: unknown } | null | undefined)?.structuredPatch;
  if (!Array.isArray(hunks) || hunks.length === 0) return undefined;
  let added = 0;
  let removed = 0;
  for (const hunk of hunks) {
    const lines = (hunk as { lines?: unknown })?.lines;
    if (!Array.isArray(lines)) continue;
    for (const line of lines) {
      if (typeof line !== 'string') continue;
      if (line.startsWith('+')) added++;
      else if (line.startsWith('-')) removed++;
    }
  }
  return { added, removed };
}

/** A shell call in one line: its description when it gave one, else the command's first line. */
function commandLine(input: Record<string, unknown>): string {
  const described = typeof input.description === 'string' ? input.description.trim() : '';
  return firstLine(described || String(input.command ?? ''));
}

/** What a Claude Code tool call came to, as the timeline shows a built-in tool's result. */
export function claudeToolResult(
  worktree: string,
  tool: string,
  input: Record<string, unknown>,
  ok: boolean,
  output: string,
  /** Claude Code's own report of the call (`tool_use_result`): an edit's patch. */
  report?: unknown,
): ToolResult {
  const file = worktreeRelative(worktree, input.file_path ?? input.notebook_path ?? input.path);
  if (!ok) {
    const reason = firstLine(output) || 'failed';
    return { ok: false, error: output, summary: `${tool}${file ? ` ${file}` : ''} — ${reason}` };
  }
  let changed: FileChangeSummary | undefined;
  let summary: string;
  switch (tool) {
    case 'Write': {
      // A new file: every line is added; an overwritten one: what its patch says.
      const counts = patchCounts(report) ?? { added: lineCount(input.content), removed: 0 };
      changed = file ? { path: file, ...counts } : undefined;
      summary = `Wrote ${file ?? 'a file'} +${counts.added} −${counts.removed}`;
      break;
    }
    case 'Edit':
      changed = file
        ? { path: file, added: lineCount(input.new_string), removed: lineCount(input.old_string) }
        : undefined;
      summary = `Edited ${file ?? 'a file'} +${lineCount(input.new_string)} −${lineCount(input.old_string)}`;
      break;
    case 'MultiEdit':
    case 'NotebookEdit':
      summary = `Edited ${file ?? 'a file'}`;
      break;
    case 'Read':
      summary = `Read ${file ?? 'a file'}`;
      break;
    case 'Bash':
      summary = `Ran ${commandLine(input)}`;
      break;
    case 'Glob':
    case 'Grep':
      summary = `Searched ${firstLine(String(input.pattern ?? ''))}`;
      break;
    default:
      summary = `${tool}${firstLine(output) ? ` — ${firstLine(output)}` : ''}`;
  }
  return { ok: true, output, summary, ...(changed ? { changed } : {}) };
}
