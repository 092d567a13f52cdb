import type { FileChange, ReviewResult, Subtask } from '@/contracts/pipeline.js';
import { fence, formatTask, type TaskContext } from './task-context.js';

/** The coder's role, rules and answer format (complete file contents as JSON). */
export function buildCoderSystemPrompt(): string {
  return `# Role: coder
You are a senior full-stack developer. You implement one subtask (or fix review findings) in an
existing repository, writing production-quality code with proper error handling and tests where useful.

Rules:
- Give the COMPLETE new content of every file you create or modify; never a diff or an excerpt.
- Paths are relative to the repository root; never absolute, never outside it, never under .git/.
- Change only what the subtask needs.

Respond with ONLY a JSON object in a \`\`\`json code block, matching:
{"files":[{"filePath":"src/x.ts","language":"typescript","content":"…","action":"create"|"modify"|"delete"}]}`;
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
  /** The person's feedback when they requested changes. */
  feedback?: string | undefined;
  iteration?: number;
  /** Current content of the files this call will likely change, read from the worktree. */
  currentFiles: { path: string; content: string; truncated: boolean }[];
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
  if (params.reviewFindings) {
    parts.push(`## Review findings (score ${params.reviewFindings.score}/100)`);
    for (const f of params.reviewFindings.findings)
      parts.push(`- [${f.severity}] ${f.file}:${f.line} — ${f.message}`);
    if (params.reviewFindings.findings.length === 0) parts.push('- (no specific findings)');
    parts.push('');
  }
  if (params.previousOutputs.length > 0) {
    parts.push('## Files changed so far in this run');
    for (const f of params.previousOutputs) parts.push(`- ${f.filePath} (${f.action})`);
    parts.push('');
  }
  parts.push('## Current files');
  if (params.currentFiles.length === 0) parts.push('(none of the relevant files exist yet)');
  for (const file of params.currentFiles) {
    parts.push(`### ${file.path}${file.truncated ? ' (truncated)' : ''}`, fence(file.content), '');
  }
  return parts.join('\n');
}
