/**
 * How AutoCoder marks a coder step it hands to an external coding agent (Claude Code, Codex), so
 * that the simulator, playing the model behind that agent, knows the step is AutoCoder's and
 * which agent asks. Claude Code gets the instructions appended to its system prompt; Codex gets
 * them at the head of its prompt (a user message). Either way they begin with this line.
 */

export const CODER_ENGINES = ['claude-code', 'codex'] as const;
export type CoderEngine = (typeof CODER_ENGINES)[number];

/** The first line of AutoCoder's instructions to an external engine. */
export const ENGINE_ROLE_LINE = (engine: CoderEngine) => `# Role: coder (engine: ${engine})`;

const MARKER = /^#\s*Role:\s*coder\s*\(engine:\s*(claude-code|codex)\)\s*$/im;

/** The engine a text's `# Role: coder (engine: …)` line names (on a line of its own, anywhere). */
export function engineMarked(text: string): CoderEngine | undefined {
  return MARKER.exec(text)?.[1]?.toLowerCase() as CoderEngine | undefined;
}

/** Claude Code's context blocks, which it puts in the user's first message. */
const REMINDER = /<system-reminder>[\s\S]*?<\/system-reminder>/g;

/**
 * The step text in an engine's message: what follows AutoCoder's instructions (from the
 * `Task title:` line the step text begins with), without Claude Code's `<system-reminder>` blocks.
 */
export function engineStepText(message: string): string {
  const text = message.replace(REMINDER, '').trim();
  const at = /^Task title:/m.exec(text);
  return at ? text.slice(at.index) : text;
}
