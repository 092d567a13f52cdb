import type { TokenUsage } from '@/contracts/pipeline.js';
import type { ToolResult } from '../agent-tools/tool-types.js';

const SUMMARY_CHARS = 200;

/** An item of `codex exec --json` (a command, a file change, an MCP tool call, a message…). */
export interface CodexItem {
  id?: string;
  type?: string;
  text?: string;
  command?: string;
  aggregated_output?: string;
  exit_code?: number | null;
  status?: string;
  changes?: Array<{ path?: string; kind?: string }>;
  server?: string;
  tool?: string;
  arguments?: unknown;
  error?: { message?: string } | null;
  /** An MCP tool call's result: its content blocks, and whether the tool said it failed. */
  result?: { content?: { text?: unknown }[]; is_error?: boolean; isError?: boolean } | null;
  query?: string;
  message?: string;
}

export interface CodexEvent {
  type?: string;
  item?: CodexItem;
  usage?: Record<string, unknown>;
  error?: { message?: string };
  message?: string;
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > SUMMARY_CHARS ? `${line.slice(0, SUMMARY_CHARS)}…` : line;
}

/** A Codex item as a tool call for the timeline; null for items that are not calls. */
/** Codex runs each command as `/usr/bin/bash -lc "<command>"`: the command itself, for a summary. */
export function unwrapShell(command: string): string {
  const match = /^(?:\S*\/)?(?:ba|z)?sh -l?c (["'])([\s\S]*)\1$/.exec(command.trim());
  return match ? (match[2] ?? command) : command;
}

export function callOf(item: CodexItem): { tool: string; input: Record<string, unknown> } | null {
  switch (item.type) {
    case 'command_execution':
      return { tool: 'exec_command', input: { command: item.command ?? '' } };
    case 'file_change':
      return { tool: 'file_change', input: { changes: item.changes ?? [] } };
    case 'mcp_tool_call':
      return {
        tool: 'mcp_tool_call',
        input: { server: item.server ?? '', tool: item.tool ?? '', arguments: item.arguments ?? {} },
      };
    case 'web_search':
      return { tool: 'web_search', input: { query: item.query ?? '' } };
    default:
      return null;
  }
}

/** What a finished Codex item came to, as a timeline line. */
export function resultOf(item: CodexItem): ToolResult {
  switch (item.type) {
    case 'command_execution': {
      const output = item.aggregated_output ?? '';
      const ok = item.status === 'completed' && (item.exit_code ?? 0) === 0;
      const how =
        item.exit_code === null || item.exit_code === undefined ? item.status : `exit ${item.exit_code}`;
      const summary = `Ran ${firstLine(unwrapShell(item.command ?? ''))} — ${how}`;
      return ok ? { ok, output, summary } : { ok: false, error: output, summary };
    }
    case 'file_change': {
      const files = (item.changes ?? []).map((c) => `${c.path ?? '?'} (${c.kind ?? 'change'})`).join(', ');
      const summary = `Changed ${firstLine(files) || 'files'}`;
      return item.status === 'failed'
        ? { ok: false, error: summary, summary }
        : { ok: true, output: files, summary };
    }
    case 'mcp_tool_call': {
      const text = (item.result?.content ?? [])
        .map((block) => (typeof block?.text === 'string' ? block.text : ''))
        .join('\n');
      const said = item.error?.message ?? text;
      const summary = `${item.server ?? 'mcp'}.${item.tool ?? 'tool'}${said ? ` — ${firstLine(said)}` : ''}`;
      const failed = item.status === 'failed' || item.error || item.result?.is_error || item.result?.isError;
      return failed ? { ok: false, error: said || 'failed', summary } : { ok: true, output: text, summary };
    }
    default:
      return { ok: true, output: '', summary: `Searched the web for ${firstLine(item.query ?? '')}` };
  }
}

export function usageOf(usage: Record<string, unknown> | undefined): TokenUsage {
  const n = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  const cached = n(usage?.cached_input_tokens);
  return {
    inputTokens: n(usage?.input_tokens),
    outputTokens: n(usage?.output_tokens) + n(usage?.reasoning_output_tokens),
    ...(cached ? { cacheReadTokens: cached } : {}),
  };
}
