import { buildCoderUserPrompt, type CoderPromptParams } from './coder-prompt.js';

export type CoderLoopPromptParams = Omit<CoderPromptParams, 'currentFiles' | 'conflicts'> & {
  /** Files left with conflict markers by merging the default branch into the task branch. */
  conflicts?: string[] | undefined;
};

/**
 * The tool-using coder's first message: the step in the one-shot coder's words (task, subtask or
 * findings, failed check, feedback, comments, files changed so far), without file contents — the
 * agent reads what it needs — and with the files the plan names and any conflicts to resolve.
 */
export function buildCoderLoopPrompt(
  params: CoderLoopPromptParams,
  /** An external engine (Claude Code, Codex) has tools of its own: the step names none. */
  options: { external?: boolean } = {},
): string {
  const brief = buildCoderUserPrompt({ ...params, conflicts: undefined, currentFiles: [] });
  const cut = brief.lastIndexOf('\n## Current files');
  const parts = [(cut >= 0 ? brief.slice(0, cut) : brief).trimEnd(), ''];
  const planned = params.subtask?.files ?? [];
  if (planned.length > 0) {
    parts.push('## Files the plan names (they may not exist yet)', ...planned.map((file) => `- ${file}`), '');
  }
  if (params.conflicts?.length) {
    parts.push(
      '## Merge conflicts to resolve',
      'The default branch was merged into this branch, and these files hold conflict markers',
      `(<<<<<<<, =======, >>>>>>>). Read each one and resolve every conflict${options.external ? '' : ' with edit_file'}, keeping`,
      "both sides' intent; leave no marker.",
      ...params.conflicts.map((file) => `- ${file}`),
      '',
    );
  }
  parts.push(
    options.external
      ? 'Do the step, then end with a short summary of what you changed.'
      : 'Do the step with the tools, then call finish.',
  );
  return parts.join('\n');
}
