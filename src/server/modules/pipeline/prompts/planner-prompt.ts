import { formatTask, type TaskContext } from './task-context.js';

/** The planner's role, rules and answer format (an ordered subtask list as JSON). */
export function buildPlannerSystemPrompt(): string {
  return `# Role: planner
You are a senior software architect. You break a development task into a short, ordered list of
self-contained subtasks that a developer can implement one after another in the repository shown.

Rules:
- At most 10 subtasks (usually 2–5), ordered so each builds only on earlier ones.
- Each subtask names the files it will create or change, relative to the repository root.
- Be concrete: say what to build, not how to feel about it.

Respond with ONLY a JSON object in a \`\`\`json code block, matching:
{"subtasks":[{"id":"st-1","title":"…","description":"…","order":1,"files":["path/to/file.ts"]}]}`;
}

export function buildPlannerUserPrompt(params: { task: TaskContext; repoMap: string }): string {
  return `${formatTask(params.task)}

## Repository map
${params.repoMap || '(empty repository)'}

Plan the subtasks for this task.`;
}
