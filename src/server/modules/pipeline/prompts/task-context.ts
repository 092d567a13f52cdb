/** What every agent is told about the task. */
export interface TaskContext {
  title: string;
  description: string;
  category: string;
}

/** A repository check that failed, as an agent is shown it: one line, then the end of its output. */
export interface FailedCheck {
  summary: string;
  tail: string;
}

/** The `## Failing check` section of a prompt (the simulator reads it too). */
export function formatFailedCheck(check: FailedCheck): string[] {
  return [
    '## Failing check',
    `${check.summary}. The end of its output:`,
    fence(check.tail.trimEnd() || '(no output)'),
    '',
  ];
}

/** The task block shared by every user prompt (the simulator parses these lines too). */
export function formatTask(task: TaskContext): string {
  return [
    `Task title: ${task.title}`,
    `Task category: ${task.category}`,
    'Task description:',
    task.description.trim() || '(none)',
  ].join('\n');
}

/** Fences text so that backticks inside it cannot close the fence. */
export function fence(text: string, language = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${language}\n${text}\n${ticks}`;
}
