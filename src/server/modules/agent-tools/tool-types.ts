/**
 * What a tool call gives back. A failure is a value too: the loop hands `error` to the model as
 * a tool error and shows `summary` in the timeline; nothing a model sends makes `execute` throw.
 */
export type ToolResult = ToolSuccess | ToolFailure;

export interface ToolSuccess {
  ok: true;
  /** What the model reads. */
  output: string;
  /** One line a person reads in the timeline ("Edited src/board.ts +3 −1"). */
  summary: string;
  /** The file a write, edit or delete changed, with its line counts. */
  changed?: FileChangeSummary;
}

export interface ToolFailure {
  ok: false;
  /** What the model reads: what was wrong and what to do instead. */
  error: string;
  summary: string;
}

export interface FileChangeSummary {
  /** Worktree-relative, `/`-separated, as the file really is (links on the way resolved). */
  path: string;
  added: number;
  removed: number;
}

/** The caps a step's tools work within; every tool says when one cut its answer. */
export interface ToolLimits {
  /** Largest file read_file, edit_file and write_file accept. */
  maxFileBytes: number;
  /** Lines and bytes one read_file call shows. */
  maxReadLines: number;
  maxReadBytes: number;
  /** A longer line is cut in read_file's output (and the read does not count as in full). */
  maxLineChars: number;
  /** Paths one list_files call shows. */
  maxListEntries: number;
  /** Matches one search call shows, each line cut to `maxSearchLineChars`. */
  maxSearchMatches: number;
  maxSearchLineChars: number;
  /** git's output a search or a listing reads at most; past it counting stops. */
  maxGitOutputBytes: number;
  /** A git command (list_files, search) is stopped after this many ms. */
  gitTimeoutMs: number;
}

export const DEFAULT_TOOL_LIMITS: ToolLimits = {
  maxFileBytes: 10 * 1024 * 1024,
  maxReadLines: 2000,
  maxReadBytes: 100 * 1024,
  maxLineChars: 2000,
  maxListEntries: 500,
  maxSearchMatches: 200,
  maxSearchLineChars: 300,
  maxGitOutputBytes: 8 * 1024 * 1024,
  gitTimeoutMs: 30_000,
};

/**
 * A tool's refusal, thrown inside the tools and turned into a `ToolFailure` at the executor's
 * boundary (the only place that catches it).
 */
export class ToolProblem extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolProblem';
  }
}
