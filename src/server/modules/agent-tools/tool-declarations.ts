import { z } from 'zod';
import { DEFAULT_TOOL_LIMITS, type ToolLimits } from './tool-types.js';

/**
 * The agent tools, declared once: a zod schema per tool (what the executor parses) and the text
 * a model reads, turned into the Anthropic Messages and OpenAI-compatible `tools` shapes.
 */

const filePath = z
  .string()
  .min(1)
  .describe('Path of the file, relative to the repository root, with "/" separators (e.g. "src/app.ts").');

export const toolInputSchemas = {
  list_files: z.strictObject({
    path: z
      .string()
      .optional()
      .describe(
        'A directory relative to the repository root; its files are listed recursively. Default: the root.',
      ),
    glob: z
      .string()
      .min(1)
      .optional()
      .describe(
        'A pattern the paths must match: "*" within one directory, "**" across directories, "?", "[abc]", "{ts,tsx}". ' +
          'A pattern without "/" matches file names anywhere ("*.test.ts").',
      ),
  }),
  read_file: z.strictObject({
    path: filePath,
    startLine: z.int().min(1).optional().describe('First line to show (1-based). Default: 1.'),
    endLine: z
      .int()
      .min(1)
      .optional()
      .describe('Last line to show (inclusive). Default: as far as the cap allows.'),
  }),
  search: z.strictObject({
    pattern: z
      .string()
      .min(1)
      .describe('A Perl-compatible regular expression, or the exact text to find when `fixed` is true.'),
    fixed: z.boolean().optional().describe('Match `pattern` as plain text rather than a regular expression.'),
    glob: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Only search files whose path matches this pattern (as in list_files: "*.ts", "src/**/*.tsx").',
      ),
    caseSensitive: z.boolean().optional().describe('Default: true.'),
  }),
  edit_file: z.strictObject({
    path: filePath,
    oldText: z
      .string()
      .min(1)
      .describe('Text to replace, copied exactly from the file (whitespace and indentation included).'),
    newText: z.string().describe('The text that takes its place (may be empty, to delete).'),
    replaceAll: z
      .boolean()
      .optional()
      .describe('Replace every occurrence; otherwise oldText must occur exactly once.'),
  }),
  write_file: z.strictObject({
    path: filePath,
    content: z.string().describe('The complete content of the file.'),
  }),
  delete_file: z.strictObject({ path: filePath }),
  run_check: z.strictObject({}),
  finish: z.strictObject({
    summary: z.string().min(1).describe('What you changed and why, in a few sentences for the reviewer.'),
  }),
};

export type ToolName = keyof typeof toolInputSchemas;
export type ToolInput<N extends ToolName> = z.infer<(typeof toolInputSchemas)[N]>;

export const TOOL_NAMES = Object.keys(toolInputSchemas) as ToolName[];
/** The tools that change nothing: what the planner and the reviewer get. */
export const READ_ONLY_TOOLS: ToolName[] = ['list_files', 'read_file', 'search'];

export function isToolName(name: string): name is ToolName {
  return Object.hasOwn(toolInputSchemas, name);
}

function descriptions(limits: ToolLimits): Record<ToolName, string> {
  const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;
  return {
    list_files:
      'List the files of the repository (tracked and new, not those git ignores), one path per line, ' +
      `under a directory and/or matching a glob. At most ${limits.maxListEntries} paths; the answer says how many ` +
      'more there were, so narrow with path or glob.',
    read_file:
      'Read a text file, as numbered lines ("  12\\t<line>"; the number and tab are not part of the file). ' +
      `One call shows at most ${limits.maxReadLines} lines or ${Math.round(limits.maxReadBytes / 1024)} KB and says ` +
      'where it stopped and how to continue; ask for a line range in large files. Binary files are refused.',
    search:
      'Search the repository (tracked and new files, not ignored or binary ones) for a regular expression or ' +
      `fixed text. Answers "path:line:text" for at most ${limits.maxSearchMatches} matches and says how many more ` +
      'there were. Use it to find definitions, callers and tests before you change something.',
    edit_file:
      'Replace text in an existing file: oldText must occur exactly once (or set replaceAll). Copy oldText from ' +
      'read_file without the line numbers, with enough surrounding lines to be unique. Everything else in the ' +
      'file is left byte for byte as it was. Prefer this to write_file for changes to existing files.',
    write_file:
      'Create a file, or replace a whole file you have read in full with read_file during this step. ' +
      `Parent directories are created. Files over ${mb(limits.maxFileBytes)} are refused.`,
    delete_file: 'Delete a file.',
    run_check:
      "Run the project's check (its tests, linters) and get back its exit code and the end of its output.",
    finish: 'End your step with a summary of what you did. Call it once, when the work is done.',
  };
}

export interface ToolDeclaration {
  name: ToolName;
  description: string;
  /** JSON Schema (draft 2020-12) of the input, an object. */
  parameters: Record<string, unknown>;
}

/** The declarations of `names` (all tools by default), with the caps of `limits` in their text. */
export function toolDeclarations(
  names: readonly ToolName[] = TOOL_NAMES,
  limits: ToolLimits = DEFAULT_TOOL_LIMITS,
): ToolDeclaration[] {
  const text = descriptions(limits);
  return names.map((name) => ({
    name,
    description: text[name],
    parameters: cleanSchema(z.toJSONSchema(toolInputSchemas[name])) as Record<string, unknown>,
  }));
}

/** Anthropic Messages `tools`. */
export function anthropicTools(declarations: ToolDeclaration[]) {
  return declarations.map(({ name, description, parameters }) => ({
    name,
    description,
    input_schema: { ...parameters, type: 'object' as const },
  }));
}

/** OpenAI-compatible chat completions `tools` (OpenAI, Ollama, vLLM, LM Studio, OpenRouter). */
export function openAiTools(declarations: ToolDeclaration[]) {
  return declarations.map(({ name, description, parameters }) => ({
    type: 'function' as const,
    function: { name, description, parameters },
  }));
}

/**
 * Drops what providers do not need or some reject: the `$schema` keyword, and the safe-integer
 * bounds zod adds to every integer (noise in each request's tokens).
 */
function cleanSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(cleanSchema);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema') continue;
    if ((key === 'maximum' || key === 'minimum') && Math.abs(Number(value)) === Number.MAX_SAFE_INTEGER)
      continue;
    out[key] = cleanSchema(value);
  }
  return out;
}
