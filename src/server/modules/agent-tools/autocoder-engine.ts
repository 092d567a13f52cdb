import { runAgentLoop } from './agent-loop.js';
import type { CheckRunOutcome, CoderEngine, CoderStep, CoderStepResult } from './coder-engine.js';
import { TOOL_NAMES, type ToolName, toolDeclarations } from './tool-declarations.js';
import { createToolExecutor } from './tool-executor.js';
import type { ToolResult } from './tool-types.js';

/** The coder's role and way of working with tools. */
export function coderLoopSystemPrompt(withCheck: boolean): string {
  return `# Role: coder
You are a senior software engineer working in a git repository through tools. You implement one
subtask of a task (or fix review findings, a failing check, or a person's feedback), writing
production-quality code that fits the code around it.

How to work:
- Look before you change: find the code with list_files and search, read it with read_file (ask for
  a line range in a large file). Find the callers and tests of what you change.
- Change existing files with edit_file: copy oldText exactly from read_file's output, without the
  line numbers and the tab after them, with enough lines around it to occur once. Use write_file for
  new files (or a file you have read in full). Everything you do not touch stays as it is.
- Paths are relative to the repository root, with "/"; never absolute, never outside it, never .git.
- Change only what the step needs; keep the repository's style.${
    withCheck
      ? `
- When your change is made, run the project's check with run_check and fix what fails, if it is
  yours to fix.`
      : ''
  }
- When the work is done, call finish with a short summary for the reviewer: what you changed and why.
Your changes are committed when you finish.`;
}

function checkResult(outcome: CheckRunOutcome): ToolResult {
  const how = outcome.passed
    ? 'passed'
    : outcome.timedOut
      ? 'was stopped at its time limit'
      : outcome.exitCode === null
        ? 'did not finish'
        : `failed, exit ${outcome.exitCode}`;
  return {
    ok: true,
    output: `The check ${how} after ${(outcome.durationMs / 1000).toFixed(1)} s. The end of its output:\n${outcome.tail.trimEnd() || '(no output)'}`,
    summary: `Ran the check — ${how}`,
  };
}

/**
 * AutoCoder's own coder: a loop of tool calls on the worktree (see agent-loop.ts), with every
 * tool of tool-declarations.ts; `run_check` only when the project has a check.
 */
export function createAutocoderEngine(): CoderEngine {
  return {
    id: 'autocoder',
    async run(step: CoderStep): Promise<CoderStepResult> {
      const runCheck = step.runCheck;
      const names: ToolName[] = TOOL_NAMES.filter((name) => name !== 'run_check' || runCheck);
      const executor = createToolExecutor({
        worktree: step.worktree,
        beforeWrite: step.beforeWrite,
        handlers: {
          ...(runCheck
            ? { run_check: async (_input, signal) => checkResult(await runCheck(signal ?? step.signal)) }
            : {}),
          finish: async (input) => ({
            ok: true,
            output: 'Step finished.',
            summary: `Finished: ${input.summary.split('\n')[0]?.slice(0, 200)}`,
          }),
        },
      });
      const result = await runAgentLoop({
        provider: step.provider,
        agent: 'coder',
        model: step.model,
        maxTokens: step.maxTokens,
        system: coderLoopSystemPrompt(runCheck !== undefined),
        prompt: step.prompt,
        tools: toolDeclarations(names),
        executor,
        maxToolCalls: step.maxToolCalls,
        signal: step.signal,
        runId: step.runId,
        cache: true,
        ...(step.beforeTurn ? { beforeTurn: step.beforeTurn } : {}),
        ...(step.maxTurnBytes !== undefined ? { maxTurnBytes: step.maxTurnBytes } : {}),
        ...(step.onTurnTooLarge ? { onTurnTooLarge: step.onTurnTooLarge } : {}),
        ...step.events,
      });
      return {
        summary: result.finishSummary,
        transcript: result.transcript,
        usage: result.usage,
        model: result.model,
        durationMs: result.durationMs,
        turns: result.turns,
        toolCalls: result.toolCalls,
      };
    },
  };
}
