import type { ServiceOutputEvent } from '@/contracts/services';

/** Lines kept in memory per log view; older ones are dropped (the file on the server keeps 1 MB). */
export const MAX_OUTPUT_LINES = 5_000;

export interface OutputLine {
  /** Stable across appends to the same line, for React keys. */
  id: number;
  stream: 'stdout' | 'stderr';
  text: string;
  /** False while the line has not ended with a newline yet: the next piece of the stream continues it. */
  complete: boolean;
}

export interface OutputState {
  lines: OutputLine[];
  /** Lines dropped from the front to stay within the cap. */
  dropped: number;
  /** The exit event's code; undefined while the process runs (or no run was streamed). */
  exitCode: number | null | undefined;
  nextId: number;
}

export const EMPTY_OUTPUT: OutputState = { lines: [], dropped: 0, exitCode: undefined, nextId: 0 };

/**
 * Folds output events into lines: pieces of one stream join until a newline, stdout and stderr are
 * kept apart, and only the last `max` lines are kept. Pure: returns a new state, reuses unchanged lines.
 */
export function appendOutput(
  state: OutputState,
  events: readonly ServiceOutputEvent[],
  max = MAX_OUTPUT_LINES,
): OutputState {
  if (events.length === 0) return state;
  const lines = state.lines.slice();
  let { nextId, exitCode } = state;
  for (const event of events) {
    if (event.type === 'exit') {
      exitCode = event.exitCode;
      const last = lines.at(-1);
      if (last && !last.complete) lines[lines.length - 1] = { ...last, complete: true };
      continue;
    }
    const pieces = event.data.split('\n');
    pieces.forEach((piece, index) => {
      const isLast = index === pieces.length - 1;
      // "a\nb\n" splits into ["a", "b", ""]: the trailing empty piece only says the last line ended.
      if (isLast && piece === '') return;
      const complete = !isLast;
      const open = lines.at(-1);
      if (index === 0 && open && !open.complete && open.stream === event.type) {
        lines[lines.length - 1] = { ...open, text: open.text + piece, complete };
        return;
      }
      if (index === 0 && open && !open.complete) lines[lines.length - 1] = { ...open, complete: true };
      lines.push({ id: nextId++, stream: event.type, text: piece, complete });
    });
  }
  const excess = Math.max(0, lines.length - max);
  return {
    lines: excess > 0 ? lines.slice(excess) : lines,
    dropped: state.dropped + excess,
    exitCode,
    nextId,
  };
}
