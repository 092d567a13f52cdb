/**
 * What a tool call's line says while it runs, from the call's own input ("Reading src/board.ts…").
 * The input is the model's: every value is checked for its type and cut, and is only ever shown as
 * text.
 */

const MAX_VALUE = 120;

/** A string argument of the call, cut to a readable length; '' when absent or not a string. */
export function textArg(input: Record<string, unknown>, key: string, max = MAX_VALUE): string {
  const value = input[key];
  if (typeof value !== 'string') return '';
  const line = value.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

const numberArg = (input: Record<string, unknown>, key: string): number | null => {
  const value = input[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
};

function lineRange(input: Record<string, unknown>): string {
  const start = numberArg(input, 'startLine');
  const end = numberArg(input, 'endLine');
  if (start === null && end === null) return '';
  if (end === null) return ` from line ${start}`;
  return ` lines ${start ?? 1}–${end}`;
}

export function pendingLabel(tool: string, input: Record<string, unknown>): string {
  const path = textArg(input, 'path');
  const glob = textArg(input, 'glob');
  switch (tool) {
    case 'list_files':
      return `Listing files${path ? ` in ${path}` : ''}${glob ? ` matching ${glob}` : ''}…`;
    case 'read_file':
      return `Reading ${path || 'a file'}${lineRange(input)}…`;
    case 'search':
      return `Searching '${textArg(input, 'pattern', 60)}'${glob ? ` in ${glob}` : ''}…`;
    case 'edit_file':
      return `Editing ${path || 'a file'}…`;
    case 'write_file':
      return `Writing ${path || 'a file'}…`;
    case 'delete_file':
      return `Deleting ${path || 'a file'}…`;
    case 'run_check':
      return 'Running the check…';
    case 'finish':
      return 'Finishing the step…';
    case '':
      return 'A tool call…';
    default:
      return `Calling ${tool.slice(0, 60)}…`;
  }
}
