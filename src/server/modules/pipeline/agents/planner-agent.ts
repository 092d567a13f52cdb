import { type SubtaskList, subtaskListSchema } from '@/contracts/pipeline.js';
import { buildPlannerSystemPrompt, buildPlannerUserPrompt } from '../prompts/planner-prompt.js';
import type { TaskContext } from '../prompts/task-context.js';
import { type AgentExecuteParams, type AgentResult, runAgent } from './agent-base.js';

/** The planner: the task and a map of the repository in, an ordered subtask list out. */
export async function executePlannerAgent(
  params: AgentExecuteParams & { task: TaskContext; repoMap: string },
): Promise<AgentResult<SubtaskList>> {
  const result = await runAgent('planner', {
    ...params,
    system: buildPlannerSystemPrompt(),
    prompt: buildPlannerUserPrompt({ task: params.task, repoMap: params.repoMap }),
    schema: subtaskListSchema,
  });
  // Orders as given may have gaps or repeats: renumber in the order the planner meant.
  const subtasks = [...result.output.subtasks]
    .sort((a, b) => a.order - b.order)
    .map((s, i) => ({ ...s, order: i + 1 }));
  return { ...result, output: { subtasks } };
}
