import path from 'node:path';
import type { FileChangeSummary, ToolResult } from '../agent-tools/tool-types.js';

/** Longest piece of an engine's tool output shown in a summary line. */
const SUMMARY_CHARS = 200;

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
): { tool: string; input: Record<string, unknown> } {
  if (tool === 'Write') return { tool: 'write_file', input: { content: input.content } };
  if (tool === 'Edit')
    return { tool: 'edit_file', input: { oldText: input.old_string, newText: input.new_string } };
  return { tool, input };
}

/** What a Claude Code tool call came to, as the timeline shows a built-in tool's result. */
export function claudeToolResult(
  worktree: string,
  tool: string,
  input: Record<string, unknown>,
  ok: boolean,
  output: string,
): ToolResult {
  const file = worktreeRelative(worktree, input.file_path ?? input.notebook_path ?? input.path);
  if (!ok) {
    const reason = firstLine(output) || 'failed';
    return { ok: false, error: output, summary: `${tool}${file ? ` ${file}` : ''} — ${reason}` };
  }
  let changed: FileChangeSummary | undefined;
  let summary: string;
  switch (tool) {
    case 'Write':
      changed = file ? { path: file, added: lineCount(input.content), removed: 0 } : undefined;
      summary = `Wrote ${file ?? 'a file'} (${lineCount(input.content)} lines)`;
      break;
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
      summary = `Ran ${firstLine(String(input.command ?? ''))}`;
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
