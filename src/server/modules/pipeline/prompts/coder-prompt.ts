import type { FileChange, ReviewResult, Subtask } from '@/contracts/pipeline.js';
import { CHECK_FINDING_FILE } from '@/contracts/run-lifecycle.js';
import { type ContextFile, shownCut, shownPart } from '../../workspace/context.js';
import { type FailedCheck, fence, formatFailedCheck, formatTask, type TaskContext } from './task-context.js';

/**
 * The coder's role, rules and answer format (JSON): complete file contents, or search/replace
 * blocks for an existing file (`action: "edit"`), the only way to change a file shown cut.
 */
export function buildCoderSystemPrompt(): string {
  return `# Role: coder
You are a senior full-stack developer. You implement one subtask (or fix review findings) in an
existing repository, writing production-quality code with proper error handling and tests where useful.

Rules:
- Each file you change is either given whole or edited:
  - "create" / "modify": the COMPLETE new content of the file; never a diff or an excerpt.
  - "edit" (an existing file): search/replace blocks, applied in order, each to the result of the
    ones before. Copy each "search" EXACTLY from the file as shown (every space, indentation and
    line break) and make it occur exactly once in the whole file: include a few surrounding lines
    when a line alone could occur more than once. "replace" is what takes its place. Keep the
    blocks short; everything outside them stays as it is.
  - "delete": removes the file (give "content": "").
- Paths are relative to the repository root; never absolute, never outside it, never under .git/.
- Change only what the subtask needs.
- A file marked "(truncated: …)" was shown only in part: change it ONLY with "edit", its searches
  copied from the part shown; never give it whole or delete it. An answer that does is refused
  whole, since it would lose the part you did not see. So is an answer with a search that is
  not found, or found more than once.

Respond with ONLY a JSON object in a \`\`\`json code block, matching:
{"files":[
  {"filePath":"src/x.ts","language":"typescript","content":"…","action":"create"|"modify"|"delete"},
  {"filePath":"src/y.ts","language":"typescript","action":"edit","edits":[{"search":"…","replace":"…"}]}
]}`;
}

export interface CoderPromptParams {
  task: TaskContext;
  /** The subtask to implement; null in fix mode (the whole task's scope). */
  subtask: Subtask | null;
  subtaskIndex?: number;
  subtaskCount?: number;
  /** Files changed by earlier subtasks of this run (paths only; current content is below). */
  previousOutputs: Pick<FileChange, 'filePath' | 'action'>[];
  /** Findings to address (fix mode). */
  reviewFindings?: ReviewResult | undefined;
  /** The repository's check, when it failed after the previous step (fix mode). */
  failedCheck?: FailedCheck | undefined;
  /** The person's feedback when they requested changes. */
  feedback?: string | undefined;
  iteration?: number;
  /** Current content of the files this call will likely change, read from the worktree. */
  currentFiles: ContextFile[];
  /** Files left with conflict markers by merging the default branch into the task branch. */
  conflicts?: ContextFile[] | undefined;
  /** The people's comments on lines of the diff. */
  comments?: { path: string; line: number; body: string }[] | undefined;
}

export function buildCoderUserPrompt(params: CoderPromptParams): string {
  const parts = [formatTask(params.task), ''];
  if (params.subtask) {
    parts.push(
      `Subtask ${params.subtaskIndex ?? params.subtask.order}/${params.subtaskCount ?? params.subtask.order}: ${params.subtask.title}`,
      params.subtask.description,
      '',
    );
  } else {
    parts.push(
      `Mode: fix (iteration ${params.iteration ?? 0})`,
      'Address every finding and all feedback below.',
      '',
    );
  }
  if (params.feedback) parts.push('## Feedback from the person reviewing', params.feedback, '');
  if (params.comments?.length) {
    parts.push('## Comments on lines of the diff');
    for (const c of params.comments) parts.push(`- ${c.path}:${c.line} — ${c.body.replace(/\s+/g, ' ')}`);
    parts.push('');
  }
  if (params.failedCheck) parts.push(...formatFailedCheck(params.failedCheck));
  if (params.reviewFindings) {
    // The check's own finding is the section above, its output fenced.
    const findings = params.reviewFindings.findings.filter(
      (f) => !(params.failedCheck && f.file === CHECK_FINDING_FILE),
    );
    parts.push(`## Review findings (score ${params.reviewFindings.score}/100)`);
    for (const f of findings) parts.push(`- [${f.severity}] ${f.file}:${f.line} — ${f.message}`);
    if (findings.length === 0) parts.push('- (no specific findings)');
    parts.push('');
  }
  if (params.previousOutputs.length > 0) {
    parts.push('## Files changed so far in this run');
    for (const f of params.previousOutputs) parts.push(`- ${f.filePath} (${f.action})`);
    parts.push('');
  }
  if (params.conflicts?.length) {
    parts.push(
      '## Merge conflicts to resolve',
      'The default branch was merged into this branch and these files conflict. Give each of them',
      "complete (or edit it: the only way for one marked truncated), with both sides' intent kept and",
      'no conflict markers (<<<<<<<, =======, >>>>>>>) left.',
      '',
    );
    for (const file of params.conflicts) parts.push(fileHeading(file), fence(file.content), '');
  }
  parts.push('## Current files');
  if (params.currentFiles.length === 0) parts.push('(none of the relevant files exist yet)');
  for (const file of params.currentFiles) parts.push(fileHeading(file), fence(file.content), '');
  return parts.join('\n');
}

/** A file's heading; a cut one says how much was shown and that it may only be edited. */
function fileHeading(file: ContextFile): string {
  const [cut] = shownCut([file]);
  if (!cut) return `### ${file.path}`;
  return `### ${file.path} (truncated: shown ${shownPart(cut)} — do not replace or delete this file; change it only with "edit" search/replace blocks copied from the lines shown)`;
}
