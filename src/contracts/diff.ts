import { z } from 'zod';
import { FINDING_SEVERITIES } from './pipeline.js';

/**
 * The diff of a pipeline run, base..head, as git computes it (issue 8 item 1):
 * `GET /api/pipeline/runs/:runId/diff` and `GET /api/pipeline/runs/:runId/diff/file?path=…`.
 */

/** A file changed by more lines than this comes without its patch (`truncated`). */
export const MAX_DIFF_FILE_LINES = 2000;
/** Largest `before`, `after` or `patch` the file endpoint sends, in bytes; past it they are cut. */
export const MAX_DIFF_FILE_BYTES = 1024 * 1024;

export const DIFF_FILE_STATUSES = ['added', 'modified', 'deleted', 'renamed'] as const;
export type DiffFileStatus = (typeof DIFF_FILE_STATUSES)[number];

/** A finding of the run's last review, pinned to a line of the file it names. */
export const diffFindingSchema = z.object({
  severity: z.enum(FINDING_SEVERITIES),
  /** The line the reviewer named (0: the file as a whole). */
  line: z.number().int().min(0),
  message: z.string(),
});

/** A finding about no changed file: none was named, or the file named is not in the diff. */
export const generalFindingSchema = diffFindingSchema.extend({
  /** The file the reviewer named, when it named one that the diff does not change. */
  file: z.string().nullable(),
});

export const diffFileSchema = z.object({
  /** The path at head (for a deleted file, the path it had). */
  path: z.string(),
  /** The path at base of a renamed file; null otherwise. */
  oldPath: z.string().nullable(),
  status: z.enum(DIFF_FILE_STATUSES),
  /** A syntax-highlighting hint from the file name ("text" when unknown). */
  language: z.string(),
  binary: z.boolean(),
  additions: z.number().int().min(0),
  deletions: z.number().int().min(0),
  /** The file's unified diff (`diff --git` header included); empty for binary and truncated files. */
  patch: z.string(),
  /**
   * True when the patch is left out: more than MAX_DIFF_FILE_LINES changed lines, or too many bytes.
   * The file endpoint still serves its contents, cut at MAX_DIFF_FILE_BYTES.
   */
  truncated: z.boolean(),
  findings: z.array(diffFindingSchema),
});

export const runDiffSchema = z.object({
  runId: z.uuid(),
  baseCommit: z.string(),
  /** The branch's head now: the last commit so far while the run is still coding. */
  headCommit: z.string(),
  stats: z.object({
    filesChanged: z.number().int().min(0),
    additions: z.number().int().min(0),
    deletions: z.number().int().min(0),
  }),
  files: z.array(diffFileSchema),
  generalFindings: z.array(generalFindingSchema),
});

export const diffFileQuerySchema = z.strictObject({ path: z.string().min(1).max(4096) });

export const diffFileContentSchema = z.object({
  path: z.string(),
  oldPath: z.string().nullable(),
  status: z.enum(DIFF_FILE_STATUSES),
  language: z.string(),
  binary: z.boolean(),
  /** The file at base; null for an added file; empty for a binary one. */
  before: z.string().nullable(),
  /** The file at head; null for a deleted file; empty for a binary one. */
  after: z.string().nullable(),
  patch: z.string(),
  /** True when `before`, `after` or `patch` was cut at `limitBytes` (at a line end for the patch). */
  truncated: z.boolean(),
  limitBytes: z.number().int(),
});

export type DiffFinding = z.infer<typeof diffFindingSchema>;
export type GeneralFinding = z.infer<typeof generalFindingSchema>;
export type DiffFile = z.infer<typeof diffFileSchema>;
export type RunDiff = z.infer<typeof runDiffSchema>;
export type DiffFileQuery = z.infer<typeof diffFileQuerySchema>;
export type DiffFileContent = z.infer<typeof diffFileContentSchema>;
