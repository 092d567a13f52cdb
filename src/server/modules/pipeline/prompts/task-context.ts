/** What every agent is told about the task. */
export interface TaskContext {
  title: string;
  description: string;
  category: string;
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
