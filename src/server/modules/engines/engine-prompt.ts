import type { ExternalEngineId } from './engine-catalog.js';

/** The first line of AutoCoder's instructions to an engine (the simulator knows an engine's step by it). */
export function engineRoleLine(engine: ExternalEngineId): string {
  return `# Role: coder (engine: ${engine})`;
}

/**
 * What AutoCoder tells an external engine besides the step itself: its part in the pipeline, the
 * locks, and what not to do (commit, push, leave the repository). Claude Code gets it appended to
 * its system prompt; Codex before the step in its prompt.
 */
export function engineInstructions(engine: ExternalEngineId): string {
  const locks =
    engine === 'claude-code'
      ? "- Other agents may be editing this repository at the same time. An edit of a file another agent holds is denied with the holder's name: work on something else or leave that change and say so in your summary."
      : "- Other agents may be editing this repository at the same time. Before you change a file, take its lock with the `autocoder` MCP server's `lock_file` tool when it is offered; if it names another holder, leave that file alone and say so in your summary. Changes to a file another agent holds are not committed until its lock is released.";
  return `${engineRoleLine(engine)}
You are the coder of AutoCoder's pipeline (Planner → Coder → Reviewer). You do one step: a subtask
of the task, or a fix of review findings, a failing check, or a person's feedback. AutoCoder commits
your changes to the run's branch when you end; a reviewer then reads the diff.
- Work only in the current directory (the repository's worktree). Do not commit, push, switch
  branches or change git settings; do not touch .git.
- Change only what the step needs; keep the repository's style. Run the project's tests if you can.
${locks}
- End with a short summary for the reviewer: what you changed and why.`;
}
