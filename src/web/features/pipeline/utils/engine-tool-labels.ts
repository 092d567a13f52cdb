import type { ExternalEngine } from '../stores/run-state';
import { textArg } from './tool-labels';

/**
 * The calls of an external coding agent (Claude Code, Codex) as the timeline shows them: a kind of
 * icon and a one-line title from the call's own input. The input is the agent's: every value is
 * checked for its type and cut, and is only ever shown as text.
 */

export const ENGINE_NAMES: Record<ExternalEngine, string> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
};

export type EngineToolKind = 'terminal' | 'edit' | 'file' | 'search' | 'list' | 'web' | 'plug' | 'other';

const KINDS: Record<string, EngineToolKind> = {
  // Claude Code
  Bash: 'terminal',
  BashOutput: 'terminal',
  KillShell: 'terminal',
  Write: 'edit',
  Edit: 'edit',
  MultiEdit: 'edit',
  NotebookEdit: 'edit',
  Read: 'file',
  NotebookRead: 'file',
  Grep: 'search',
  Glob: 'search',
  LS: 'search',
  TodoWrite: 'list',
  WebFetch: 'web',
  WebSearch: 'web',
  // Codex
  exec_command: 'terminal',
  command_execution: 'terminal',
  file_change: 'edit',
  todo_list: 'list',
  web_search: 'web',
  mcp_tool_call: 'plug',
};

export const engineToolKind = (tool: string): EngineToolKind =>
  Object.hasOwn(KINDS, tool) ? (KINDS[tool] as EngineToolKind) : 'other';

const MAX_PATH = 100;
const MAX_COMMAND = 120;
const WORKTREES = '/worktrees/';

/**
 * A path as the agent gave it, made short: inside a run's worktree (`…/worktrees/<run>/src/a.ts`)
 * relative to it, another absolute path as its last three parts. Never longer than a line.
 */
export function shortPath(given: string): string {
  const path = given.replace(/\\/g, '/').replace(/\s+/g, ' ').trim();
  const marker = path.lastIndexOf(WORKTREES);
  const rest = marker >= 0 ? path.slice(marker + WORKTREES.length) : '';
  const run = rest.split('/')[0] ?? '';
  let short = path;
  // Inside a worktree: what follows its run's folder ('.' for the folder itself).
  if (run) short = rest.slice(run.length + 1) || '.';
  else if (path.startsWith('/') || /^[A-Za-z]:\//.test(path)) {
    const parts = path.split('/').filter(Boolean);
    short = parts.length > 3 ? `…/${parts.slice(-3).join('/')}` : path;
  }
  return short.length > MAX_PATH ? `…${short.slice(-(MAX_PATH - 1))}` : short;
}

const pathArg = (input: Record<string, unknown>, ...keys: string[]): string => {
  for (const key of keys) {
    const value = input[key];
    if (typeof value === 'string' && value.trim()) return shortPath(value);
  }
  return '';
};

/** A shell command as one line: a string, or the words of an argv (Codex sends either). */
function commandArg(input: Record<string, unknown>): string {
  const value = input.command ?? input.cmd;
  const words = Array.isArray(value)
    ? value.filter((word): word is string => typeof word === 'string')
    : typeof value === 'string'
      ? [value]
      : [];
  // An argv of a shell running a script (["bash", "-lc", "npm test"]) reads as its script.
  const shell =
    words.length === 3 && /(^|\/)(ba|z)?sh$/.test(words[0] ?? '') && /^-\w*c$/.test(words[1] ?? '');
  return textArg({ command: (shell ? [words[2]] : words).join(' ') }, 'command', MAX_COMMAND);
}

/** Codex's file_change: "src/a.ts" or "src/a.ts and 2 more files", with what happens to them. */
function fileChangeTitle(input: Record<string, unknown>): string {
  const changes = Array.isArray(input.changes)
    ? input.changes.filter(
        (change): change is { path: string; kind?: unknown } =>
          change !== null &&
          typeof change === 'object' &&
          typeof (change as { path?: unknown }).path === 'string',
      )
    : [];
  const first = changes[0];
  if (!first) return 'Changing files…';
  const verb = first.kind === 'add' ? 'Adding' : first.kind === 'delete' ? 'Deleting' : 'Editing';
  const more = changes.length - 1;
  return `${verb} ${shortPath(first.path)}${more > 0 ? ` and ${more} more file${more === 1 ? '' : 's'}` : ''}…`;
}

/** What an external agent's call is doing, in one line: "$ npm test", "Editing src/a.ts…". */
export function engineCallTitle(tool: string, input: Record<string, unknown>): string {
  const file = pathArg(input, 'file_path', 'notebook_path', 'path');
  switch (tool) {
    case 'Bash':
    case 'exec_command':
    case 'command_execution': {
      const command = commandArg(input);
      return command ? `$ ${command}` : 'Running a command…';
    }
    case 'Write':
      return `Writing ${file || 'a file'}…`;
    case 'Edit':
    case 'MultiEdit':
    case 'NotebookEdit':
      return `Editing ${file || 'a file'}…`;
    case 'Read':
    case 'NotebookRead':
      return `Reading ${file || 'a file'}…`;
    case 'Grep': {
      const pattern = textArg(input, 'pattern', 60);
      const where = file || textArg(input, 'glob', 60);
      return `Searching '${pattern}'${where ? ` in ${where}` : ''}…`;
    }
    case 'Glob':
      return `Listing files matching ${textArg(input, 'pattern', 60) || 'a pattern'}${file ? ` in ${file}` : ''}…`;
    case 'LS':
      return `Listing files${file ? ` in ${file}` : ''}…`;
    case 'TodoWrite':
    case 'todo_list': {
      const todos = Array.isArray(input.todos)
        ? input.todos
        : Array.isArray(input.items)
          ? input.items
          : null;
      return todos
        ? `Updating the to-do list (${todos.length} item${todos.length === 1 ? '' : 's'})`
        : 'Updating the to-do list';
    }
    case 'WebFetch':
      return `Fetching ${textArg(input, 'url', MAX_PATH) || 'a page'}…`;
    case 'WebSearch':
    case 'web_search':
      return `Searching the web for '${textArg(input, 'query', 80)}'…`;
    case 'file_change':
      return fileChangeTitle(input);
    case 'mcp_tool_call': {
      const server = textArg(input, 'server', 40);
      const name = textArg(input, 'tool', 60);
      return `Calling ${[server, name].filter(Boolean).join(' · ') || 'a tool'}…`;
    }
    case '':
      return 'A tool call…';
    default:
      return `${textArg({ tool }, 'tool', 60)}${file ? ` ${file}` : ''}…`;
  }
}
