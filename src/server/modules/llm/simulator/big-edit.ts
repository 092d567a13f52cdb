import { commentLine } from './content.js';
import type { ToolConversation } from './tool-conversation.js';
import {
  type CallRecord,
  callsOf,
  checkPassed,
  FileView,
  field,
  type PlannedCall,
  parseRead,
  succeeded,
  type ToolTurn,
} from './tool-history.js';

/**
 * `big-edit=<path>`: the coder changes one line in the middle of a large existing file and
 * nothing else — the head of the file (to learn its length), a range around its middle, a search
 * that the chosen line occurs once, edit_file on that line, the check, finish.
 */

const MARK = 'Simulated one-line change (big-edit).';
/** Lines read around the middle, each side. */
const AROUND = 10;

/** The line as the edit leaves it: a comment in the file's language after it (a space in JSON). */
export function changedLine(path: string, line: string): string {
  const comment = commentLine(path, MARK);
  return comment ? `${line} ${comment}` : `${line} `;
}

/** The first line from the middle on (then before it) worth changing: some text, not changed before. */
function pickLine(view: FileView, mid: number): number | undefined {
  const numbers = [...view.rows.keys()].sort((a, b) => a - b);
  const worth = (n: number) => {
    const line = view.rows.get(n) ?? '';
    return line.trim().length >= 3 && !line.includes(MARK) && !line.includes('[line cut:');
  };
  return numbers.find((n) => n >= mid && worth(n)) ?? numbers.reverse().find((n) => n < mid && worth(n));
}

/** Lines k−r … k+r as far as they were read without a gap. */
function around(view: FileView, k: number, r: number): { from: number; lines: string[] } {
  let from = k;
  while (from > k - r && view.rows.has(from - 1)) from--;
  let to = k;
  while (to < k + r && view.rows.has(to + 1)) to++;
  const lines: string[] = [];
  for (let n = from; n <= to; n++) lines.push(view.rows.get(n)!);
  return { from, lines };
}

const matchCount = (output: string, path: string) =>
  output.split('\n').filter((line) => line.startsWith(`${path}:`)).length;

export function bigEditTurn(path: string, conversation: ToolConversation): ToolTurn {
  const calls = callsOf(conversation);
  const can = (name: string) => conversation.tools.includes(name);
  const on = (name: string) => calls.filter((c) => c.name === name && field(c, 'path') === path);
  const reads = on('read_file');
  const edits = on('edit_file');
  const view = new FileView();
  for (const read of reads.filter(succeeded)) view.add(parseRead(read.result!.content));
  const say = (text: string, ...next: PlannedCall[]): ToolTurn => ({ text, calls: next });
  const finish = (summary: string): ToolTurn =>
    can('finish') ? say('Simulated coder: done.', { name: 'finish', input: { summary } }) : say(summary);

  const edited = edits.find(succeeded);
  if (edited) return afterEdit(path, calls, edited, can, finish);
  if (reads.length === 0)
    return say(`Simulated coder: ${path} is large, so first its head, to see how long it is.`, {
      name: 'read_file',
      input: { path, startLine: 1, endLine: 20 },
    });
  if (view.total === undefined || view.total === 0)
    return finish(`Simulated coder (scripted): could not read ${path}, so nothing was changed.`);
  const mid = Math.max(1, Math.ceil(view.total / 2));
  if (!view.rows.has(mid) && reads.length < 3)
    return say(`Simulated coder: ${path} has ${view.total} lines; reading around its middle.`, {
      name: 'read_file',
      input: { path, startLine: Math.max(1, mid - AROUND), endLine: Math.min(view.total, mid + AROUND) },
    });
  const k = pickLine(view, mid);
  if (k === undefined) return finish(`Simulated coder (scripted): found no line to change in ${path}.`);
  const line = view.rows.get(k)!;
  const searches = calls.filter((c) => c.name === 'search' && field(c, 'glob') === path);
  if (searches.length === 0 && can('search'))
    return say(`Simulated coder: checking that line ${k} occurs once.`, {
      name: 'search',
      input: { pattern: line.trim(), fixed: true, glob: path },
    });
  if (edits.length >= 2)
    return finish(`Simulated coder (scripted): could not edit line ${k} of ${path}; nothing was changed.`);
  const search = searches.at(-1);
  const once = search && succeeded(search) && matchCount(search.result!.content, path) === 1;
  // Alone when the search found it once; else with neighbours, more of them after a failed edit.
  const radius = (once ? 0 : 1) + 2 * edits.length;
  const { from, lines } = around(view, k, radius);
  const oldText = lines.join('\n');
  const newText = lines.map((l, i) => (from + i === k ? changedLine(path, l) : l)).join('\n');
  return say(`Simulated coder: changing line ${k} of ${path}, and only that line.`, {
    name: 'edit_file',
    input: { path, oldText, newText },
  });
}

function afterEdit(
  path: string,
  calls: CallRecord[],
  edited: CallRecord,
  can: (name: string) => boolean,
  finish: (summary: string) => ToolTurn,
): ToolTurn {
  const check = calls.filter((c) => c.name === 'run_check' && c.index > edited.index).at(-1);
  if (can('run_check') && !check)
    return {
      text: "Simulated coder: running the project's check.",
      calls: [{ name: 'run_check', input: {} }],
    };
  const verdict = check ? (checkPassed(check) ? ' The check passed.' : ' The check did not pass.') : '';
  return finish(`Simulated coder (scripted, not AI): changed one line in the middle of ${path}.${verdict}`);
}
