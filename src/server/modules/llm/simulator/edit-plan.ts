/**
 * How the simulated coder turns "the file should now read so" into an edit_file call, as a model
 * that read the file would: the changed lines, widened by neighbouring lines until oldText occurs
 * once in the file.
 */

export interface TextEdit {
  oldText: string;
  newText: string;
}

/** Non-overlapping occurrences, left to right: how edit_file counts them. */
export function occurrences(text: string, needle: string): number {
  if (!needle) return 0;
  let count = 0;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}

/** Past this share of the file an edit is a rewrite: write_file says it better. */
const REWRITE_SHARE = 0.6;

/**
 * The edit that turns `current` into `desired`, or undefined when write_file fits better (an
 * empty file, or more than `maxShare` of it changes). oldText never ends with the file's final newline, which
 * read_file does not show.
 */
export function editFor(current: string, desired: string, maxShare = REWRITE_SHARE): TextEdit | undefined {
  if (current === desired || current.trim() === '') return undefined;
  const a = current.split('\n');
  const b = desired.split('\n');
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < a.length - prefix &&
    suffix < b.length - prefix &&
    a[a.length - 1 - suffix] === b[b.length - 1 - suffix]
  )
    suffix++;
  let from = prefix;
  let toA = a.length - suffix;
  let toB = b.length - suffix;
  for (;;) {
    let oldText = a.slice(from, toA).join('\n');
    let newText = b.slice(from, toB).join('\n');
    // A region that reaches the end ends with the final newline's empty "line": leave it out of both.
    if (oldText.endsWith('\n') && newText.endsWith('\n')) {
      oldText = oldText.slice(0, -1);
      newText = newText.slice(0, -1);
    }
    if (oldText.trim() !== '' && occurrences(current, oldText) === 1) {
      return oldText.length > current.length * maxShare ? undefined : { oldText, newText };
    }
    if (from === 0 && toA === a.length) return undefined;
    // Widen by a line above, else below: both sides gain the same unchanged line.
    if (from > 0) from--;
    else {
      toA++;
      toB++;
    }
  }
}

/** oldText as a careless model copies it: with read_file's line numbers (so it is not in the file). */
export function withLineNumbers(current: string, oldText: string): string {
  const at = current.indexOf(oldText);
  const first = at < 0 ? 1 : current.slice(0, at).split('\n').length;
  return oldText
    .split('\n')
    .map((line, i) => `${String(first + i).padStart(4)}\t${line}`)
    .join('\n');
}
