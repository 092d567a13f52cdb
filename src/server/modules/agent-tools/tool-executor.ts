import { realpath } from 'node:fs/promises';
import type { z } from 'zod';
import { editFileTool } from './edit-tool.js';
import { listFilesTool, searchTool } from './git-tools.js';
import { readFileTool } from './read-tool.js';
import type { ToolContext } from './tool-context.js';
import { isToolName, type ToolInput, type ToolName, toolInputSchemas } from './tool-declarations.js';
import { DEFAULT_TOOL_LIMITS, type ToolLimits, ToolProblem, type ToolResult } from './tool-types.js';
import { deleteFileTool, writeFileTool } from './write-tools.js';

/** The tools whose execution belongs to the agent loop (the check, the end of the step). */
export interface LoopToolHandlers {
  run_check?: (input: ToolInput<'run_check'>, signal?: AbortSignal) => Promise<ToolResult>;
  finish?: (input: ToolInput<'finish'>, signal?: AbortSignal) => Promise<ToolResult>;
}

export interface ToolExecutorOptions {
  /** The run's worktree; every path is confined to it. */
  worktree: string;
  /**
   * Called with the canonical worktree-relative path before a write, edit or delete touches the
   * file (where the loop takes the file's WRITING lock). What it throws comes back as a tool
   * error with its message, and the file is left untouched.
   */
  beforeWrite?: (relPath: string) => Promise<void>;
  handlers?: LoopToolHandlers;
  limits?: Partial<ToolLimits>;
}

export interface ToolExecutor {
  /** Runs one tool call. Never throws: every failure, the model's or the machine's, is a value. */
  execute(name: string, rawInput: unknown, signal?: AbortSignal): Promise<ToolResult>;
}

type Implementation<N extends ToolName> = (ctx: ToolContext, input: ToolInput<N>) => Promise<ToolResult>;

const IMPLEMENTATIONS: { [N in Exclude<ToolName, 'run_check' | 'finish'>]: Implementation<N> } = {
  list_files: listFilesTool,
  read_file: readFileTool,
  search: searchTool,
  edit_file: editFileTool,
  write_file: writeFileTool,
  delete_file: deleteFileTool,
};

/**
 * The executor of one agent step: the tools of `tool-declarations.ts` over one worktree. It
 * remembers, for this step only, which files the agent has read in full (write_file's rule), so
 * the loop makes one per step.
 */
export function createToolExecutor(options: ToolExecutorOptions): ToolExecutor {
  const limits: ToolLimits = { ...DEFAULT_TOOL_LIMITS, ...options.limits };
  const readInFull = new Map<string, string>();
  let rootReal: Promise<string> | undefined;
  let resolvedRoot = options.worktree;

  async function run(name: ToolName, input: unknown, signal?: AbortSignal): Promise<ToolResult> {
    if (name === 'run_check' || name === 'finish') {
      const handler = options.handlers?.[name] as
        | ((i: unknown, s?: AbortSignal) => Promise<ToolResult>)
        | undefined;
      if (!handler) throw new ToolProblem(`${name} is not handled here`);
      return handler(input, signal);
    }
    rootReal ??= realpath(options.worktree);
    resolvedRoot = await rootReal;
    const ctx: ToolContext = {
      rootReal: resolvedRoot,
      limits,
      readInFull,
      beforeWrite: options.beforeWrite ?? (async () => {}),
      signal,
    };
    const implementation = IMPLEMENTATIONS[name] as Implementation<typeof name>;
    return implementation(ctx, input as ToolInput<typeof name>);
  }

  return {
    async execute(name, rawInput, signal) {
      if (!isToolName(name)) {
        const known = Object.keys(toolInputSchemas).join(', ');
        return failure(
          `unknown tool ${JSON.stringify(name)}; the tools are ${known}`,
          `Called an unknown tool ${name}`,
        );
      }
      const parsed = parseInput(name, rawInput);
      if (typeof parsed === 'string') return failure(parsed, `${name} refused: bad input`);
      try {
        signal?.throwIfAborted();
        return await run(name, parsed, signal);
      } catch (error) {
        const message = describeError(error, [resolvedRoot, options.worktree], signal);
        return failure(message, `${label(name, parsed)} failed: ${message.split('\n')[0]?.slice(0, 160)}`);
      }
    },
  };
}

function failure(error: string, summary: string): ToolResult {
  return { ok: false, error, summary };
}

/** The parsed input, or what is wrong with it, field by field. */
function parseInput(name: ToolName, rawInput: unknown): unknown {
  let input = rawInput ?? {};
  if (typeof input === 'string') {
    try {
      input = JSON.parse(input || '{}');
    } catch {
      return `the input of ${name} is not valid JSON`;
    }
  }
  const schema: z.ZodType = toolInputSchemas[name];
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const fields = Object.keys(toolInputSchemas[name].shape);
  const problems = result.error.issues.slice(0, 5).map((issue) => {
    const where = issue.path.length > 0 ? issue.path.join('.') : 'input';
    return `${where}: ${issue.message}`;
  });
  const takes = fields.length > 0 ? `${name} takes ${fields.join(', ')}` : `${name} takes no input: pass {}`;
  return `invalid input for ${name}: ${problems.join('; ')} (${takes})`;
}

/** How a call is named in the timeline when it fails. */
function label(name: ToolName, input: unknown): string {
  const path = (input as { path?: unknown }).path;
  return typeof path === 'string' ? `${name} ${path}` : name;
}

function describeError(error: unknown, roots: string[], signal?: AbortSignal): string {
  if (signal?.aborted) return 'cancelled';
  if (error instanceof ToolProblem) return error.message;
  const message = error instanceof Error ? error.message : String(error);
  // An error from the file system names absolute paths; the model knows the relative ones.
  let relative = message;
  for (const root of roots) relative = relative.split(`${root}/`).join('').split(root).join('.');
  return relative;
}
