import type { Subtask } from '@/contracts/pipeline.js';
import { fence, formatTask, type TaskContext } from './task-context.js';

/** The reviewer's role, criteria, pass threshold and answer format (a verdict as JSON). */
export function buildReviewerSystemPrompt(): string {
  return `# Role: reviewer
You are a senior code reviewer. You review the changes made for a task: correctness, completeness
against the task and its subtasks, code quality, and security.

Scoring: 0–100. A change passes when it is correct and complete enough to merge: passed = true and
score >= 70. Findings point at a file and line and say what is wrong and how to fix it.

Respond with ONLY a JSON object in a \`\`\`json code block, matching:
{"passed":true,"score":85,"findings":[{"severity":"error"|"warning"|"info","file":"src/x.ts","line":12,"message":"…"}]}`;
}

export function buildReviewerUserPrompt(params: {
  task: TaskContext;
  subtasks: Subtask[];
  iteration: number;
  changedFiles: string[];
  diff: string;
  feedback?: string | undefined;
}): string {
  const parts = [formatTask(params.task), '', `Review iteration: ${params.iteration}`, '', '## Subtasks'];
  for (const s of params.subtasks) parts.push(`${s.order}. ${s.title} — ${s.description}`);
  if (params.feedback) parts.push('', '## Feedback the person asked to address', params.feedback);
  parts.push('', '## Changed files');
  for (const file of params.changedFiles) parts.push(`- ${file}`);
  if (params.changedFiles.length === 0) parts.push('(no files changed)');
  parts.push('', '## Diff', fence(params.diff || '(empty diff)', 'diff'));
  return parts.join('\n');
}
