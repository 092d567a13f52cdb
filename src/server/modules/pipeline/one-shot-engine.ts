import { createAutocoderEngine } from '../agent-tools/autocoder-engine.js';
import type { CoderEngine, CoderStepResult } from '../agent-tools/coder-engine.js';
import { EngineFailedError } from '../engines/engine-errors.js';
import { applyFileChanges } from '../workspace/apply-changes.js';
import { readFilesForContext, shownCut } from '../workspace/context.js';
import { markUnrecorded } from './agents/agent-base.js';
import { executeCoderAgent } from './agents/coder-agent.js';
import type { CoderPromptParams } from './prompts/coder-prompt.js';
import { agentParams } from './run-calls.js';
import type { DriverEnv, RunContext } from './run-context.js';
import { checkGoingOn } from './run-steps.js';

export interface OneShotBrief extends Omit<CoderPromptParams, 'currentFiles' | 'conflicts'> {
  /** Files the answer will likely change: shown whole, or cut to the window. */
  wanted: string[];
  /** Files with conflict markers, shown with them: the answer must resolve every one. */
  conflicts?: string[] | undefined;
}

/**
 * The one-shot coder as a coder engine: the files it will likely change are read into its
 * prompt (whole, or cut to the window), it answers once with whole files or search/replace blocks,
 * and the answer is applied under WRITING locks on all its files, all or none. An answer that
 * replaces or deletes a file it was shown cut is refused whole (INVALID_AGENT_OUTPUT) and nothing
 * is applied. The pipeline commits what it changed, as for any engine. Its prompt is its own (it
 * shows file contents): the step's `prompt` is not used.
 */
export function createOneShotEngine(env: DriverEnv, ctx: RunContext, brief: OneShotBrief): CoderEngine {
  return {
    id: 'one-shot',
    async run(step): Promise<CoderStepResult> {
      const { wanted, conflicts: unresolved = [], ...params } = brief;
      const conflicts = unresolved.length
        ? await readFilesForContext(ctx.worktreePath, unresolved, env.budgets.files)
        : undefined;
      const paths = [...new Set(wanted)].filter((path) => !unresolved.includes(path));
      const currentFiles = await readFilesForContext(ctx.worktreePath, paths, env.budgets.files);
      const result = await executeCoderAgent({
        ...agentParams(env, ctx, 'coder'),
        ...params,
        conflicts,
        currentFiles,
      });
      try {
        const files = result.output.files;
        const agent = {
          runId: ctx.runId,
          taskId: ctx.taskId,
          projectId: ctx.projectId,
          taskTitle: ctx.task.title,
        };
        await env.locks?.hold(
          agent,
          files.map((f) => f.filePath),
          step.title,
          step.signal,
        );
        checkGoingOn(ctx);
        const shown = shownCut([...(conflicts ?? []), ...currentFiles]);
        await applyFileChanges(ctx.worktreePath, files, { shownCut: shown });
      } catch (error) {
        // The answer was paid for even when it is refused or waits in vain for a lock.
        markUnrecorded(error, { model: result.model, usage: result.tokenUsage });
        throw error;
      }
      return {
        summary: null,
        transcript: result.text,
        usage: result.tokenUsage,
        model: result.model,
        durationMs: result.durationMs,
        turns: result.attempts,
        toolCalls: 0,
      };
    },
  };
}

/**
 * The engine of the run's coder step: the task's choice, else the project's — AutoCoder's tool
 * loop, the one-shot answer (from `oneShot`), or the person's coding agent (Claude Code, Codex).
 */
export function coderEngineOf(env: DriverEnv, ctx: RunContext, oneShot: OneShotBrief): CoderEngine {
  switch (ctx.coderEngine) {
    case 'autocoder':
      return createAutocoderEngine();
    case 'one-shot':
      return createOneShotEngine(env, ctx, oneShot);
    default:
      if (!env.engines) throw new EngineFailedError('External coder engines are not enabled on this server');
      try {
        return env.engines.create(ctx.coderEngine, ctx.credentials);
      } catch (error) {
        throw new EngineFailedError((error as Error).message);
      }
  }
}
