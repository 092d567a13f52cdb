import { type FileChanges, fileChangesSchema } from '@/contracts/pipeline.js';
import {
  buildCoderSystemPrompt,
  buildCoderUserPrompt,
  type CoderPromptParams,
} from '../prompts/coder-prompt.js';
import { type AgentExecuteParams, type AgentResult, runAgent } from './agent-base.js';

/** The coder: a subtask (or, in fix mode, findings and feedback) in, complete file contents out. */
export async function executeCoderAgent(
  params: AgentExecuteParams & CoderPromptParams,
): Promise<AgentResult<FileChanges>> {
  return runAgent('coder', {
    ...params,
    system: buildCoderSystemPrompt(),
    prompt: buildCoderUserPrompt(params),
    schema: fileChangesSchema,
  });
}
