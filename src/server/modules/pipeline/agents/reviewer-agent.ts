import { PASS_SCORE, type ReviewResult, reviewResultSchema, type Subtask } from '@/contracts/pipeline.js';
import { buildReviewerSystemPrompt, buildReviewerUserPrompt } from '../prompts/reviewer-prompt.js';
import type { TaskContext } from '../prompts/task-context.js';
import { type AgentExecuteParams, type AgentResult, runAgent } from './agent-base.js';

/** The reviewer: the diff, the task and its subtasks in, a verdict (passed, score, findings) out. */
export async function executeReviewerAgent(
  params: AgentExecuteParams & {
    task: TaskContext;
    subtasks: Subtask[];
    iteration: number;
    changedFiles: string[];
    diff: string;
    feedback?: string | undefined;
  },
): Promise<AgentResult<ReviewResult>> {
  const result = await runAgent('reviewer', {
    ...params,
    system: buildReviewerSystemPrompt(),
    prompt: buildReviewerUserPrompt(params),
    schema: reviewResultSchema,
  });
  return result;
}

/** A review passes when the reviewer says so AND the score reaches the threshold. */
export function reviewPassed(review: ReviewResult): boolean {
  return review.passed && review.score >= PASS_SCORE;
}
