// Prompts shaped like the pipeline's (src/server/modules/pipeline/prompts), for the simulator's tests.
import type { AgentType } from '@/contracts/pipeline.js';
import type { TaskCategory } from './prompt.js';

export interface FixtureTask {
  title: string;
  category: TaskCategory;
  description: string;
}

export const GREETING: FixtureTask = {
  title: 'Add greeting helper',
  category: 'feature',
  description: 'Greet a user by name.',
};

export const systemFor = (agent: AgentType) =>
  `# Role: ${agent}\nYou are a careful engineer. Answer in JSON.`;

const taskBlock = (task: FixtureTask) =>
  [
    `Task title: ${task.title}`,
    `Task category: ${task.category}`,
    'Task description:',
    task.description,
  ].join('\n');

export function plannerPrompt(task: FixtureTask): string {
  return `${taskBlock(task)}\n\n## Repository map\n(empty repository)\n\nPlan the subtasks for this task.`;
}

export function coderPrompt(
  task: FixtureTask,
  opts: {
    subtask?: { index: number; total: number; title: string };
    fixIteration?: number;
    findings?: string[];
    currentFiles?: Array<{ path: string; content: string }>;
  } = {},
): string {
  const parts = [taskBlock(task), ''];
  if (opts.subtask)
    parts.push(`Subtask ${opts.subtask.index}/${opts.subtask.total}: ${opts.subtask.title}`, 'Do it.', '');
  else parts.push(`Mode: fix (iteration ${opts.fixIteration ?? 0})`, 'Address every finding.', '');
  if (opts.findings)
    parts.push('## Review findings (score 55/100)', ...opts.findings.map((f) => `- ${f}`), '');
  parts.push('## Current files');
  const files = opts.currentFiles ?? [];
  if (files.length === 0) parts.push('(none of the relevant files exist yet)');
  for (const file of files) parts.push(`### ${file.path}`, '````', file.content, '````', '');
  return parts.join('\n');
}

export function reviewerPrompt(task: FixtureTask, iteration: number, changedFiles: string[]): string {
  return [
    taskBlock(task),
    '',
    `Review iteration: ${iteration}`,
    '',
    '## Changed files',
    ...changedFiles.map((f) => `- ${f}`),
    '',
    '## Diff',
    '```diff',
    '+ something',
    '```',
  ].join('\n');
}

/** The JSON of a fenced answer, as the pipeline's parser reads it (the last ```json block). */
export function jsonOf(text: string): unknown {
  const match = /```json\n([\s\S]*?)\n```/.exec(text);
  if (!match?.[1]) throw new Error(`no JSON block in: ${text.slice(0, 200)}`);
  return JSON.parse(match[1]);
}
