/**
 * Agents' JSON answers inside their prose (the one-shot coder's files, the planner's subtasks, the
 * reviewer's verdict): found, parsed and summed up in one readable line, so nobody has to read
 * escaped JSON. The text is the model's: it is only split and parsed here, never interpreted.
 */

export type ProsePart =
  | { kind: 'text'; text: string }
  | {
      kind: 'answer';
      /** The JSON as written (what the expander shows when it does not parse). */
      raw: string;
      /** The fence was closed (or the answer is the whole, finished text). */
      closed: boolean;
      valid: boolean;
      /** The parsed value when `valid`. */
      value: unknown;
    };

const OPEN_FENCE = /```[ \t]*json[^\n]*\n/gi;
const FENCE = '```';

/**
 * Closed answers parsed lately, by their text: prose that goes on streaming after an answer is split
 * again on every frame, and a one-shot answer can be a megabyte of JSON.
 */
const parsedAnswers = new Map<string, ProsePart>();
const PARSED_KEPT = 16;

function answerOf(raw: string, closed: boolean): ProsePart {
  if (!closed) return { kind: 'answer', raw, closed, valid: false, value: undefined };
  const known = parsedAnswers.get(raw);
  if (known) return known;
  let part: ProsePart;
  try {
    part = { kind: 'answer', raw, closed, valid: true, value: JSON.parse(raw) };
  } catch {
    part = { kind: 'answer', raw, closed, valid: false, value: undefined };
  }
  if (parsedAnswers.size >= PARSED_KEPT) parsedAnswers.delete(parsedAnswers.keys().next().value ?? '');
  parsedAnswers.set(raw, part);
  return part;
}

/**
 * The prose's plain text and its ```json blocks, in order. A block still being written (no closing
 * fence yet) is an unclosed answer. Prose that is nothing but a JSON object (an answer without a
 * fence) is an answer too, closed once it parses.
 */
export function splitProse(text: string): ProsePart[] {
  const parts: ProsePart[] = [];
  let at = 0;
  OPEN_FENCE.lastIndex = 0;
  for (let open = OPEN_FENCE.exec(text); open; open = OPEN_FENCE.exec(text)) {
    if (open.index > at) parts.push({ kind: 'text', text: text.slice(at, open.index) });
    const body = open.index + open[0].length;
    const close = text.indexOf(FENCE, body);
    if (close < 0) {
      parts.push(answerOf(text.slice(body), false));
      return parts;
    }
    parts.push(answerOf(text.slice(body, close), true));
    at = close + FENCE.length;
    // The closing fence's line break belongs to the fence.
    if (text[at] === '\n') at++;
    OPEN_FENCE.lastIndex = at;
  }
  if (at === 0 && /^\s*\{\s*"/.test(text)) {
    const trimmed = text.trim();
    // Parsing is tried only once the object could be whole: a streaming answer is not re-parsed per chunk.
    const whole = trimmed.endsWith('}') ? answerOf(trimmed, true) : null;
    return [whole?.kind === 'answer' && whole.valid ? whole : answerOf(trimmed, false)];
  }
  if (at < text.length) parts.push({ kind: 'text', text: text.slice(at) });
  return parts;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;
const SHOWN = 3;

function listed(items: string[], separator: string): string {
  const shown = items.slice(0, SHOWN).join(separator);
  return items.length > SHOWN ? `${shown}${separator}+${items.length - SHOWN} more` : shown;
}

/** One line for a parsed answer: "Answer: 3 files — src/a.ts (modify), …", "Plan: 2 subtasks — …", "Review: passed, score 88, 2 findings". */
export function summarizeAnswer(value: unknown): string {
  if (Array.isArray(value)) return `JSON answer: a list of ${value.length}`;
  if (!isRecord(value)) return 'JSON answer';
  if (Array.isArray(value.files)) {
    const files = value.files.map((file) => {
      const record = isRecord(file) ? file : {};
      const path = typeof record.filePath === 'string' ? cut(record.filePath, 80) : '(no path)';
      // A search/replace answer's file carries its blocks.
      const edits = Array.isArray(record.edits) ? `, ${plural(record.edits.length, 'block')}` : '';
      return typeof record.action === 'string' ? `${path} (${cut(record.action, 20)}${edits})` : path;
    });
    if (files.length === 0) return 'Answer: no files';
    return `Answer: ${plural(files.length, 'file')} — ${listed(files, ', ')}`;
  }
  if (Array.isArray(value.subtasks)) {
    const titles = value.subtasks
      .map((subtask) =>
        isRecord(subtask) && typeof subtask.title === 'string' ? cut(subtask.title, 60) : '',
      )
      .filter(Boolean);
    const count = `Plan: ${plural(value.subtasks.length, 'subtask')}`;
    return titles.length > 0 ? `${count} — ${listed(titles, ' · ')}` : count;
  }
  if (typeof value.passed === 'boolean' && typeof value.score === 'number') {
    const findings = Array.isArray(value.findings) ? value.findings.length : 0;
    return `Review: ${value.passed ? 'passed' : 'failed'}, score ${value.score}, ${plural(findings, 'finding')}`;
  }
  const keys = Object.keys(value);
  return keys.length > 0
    ? `JSON answer: ${listed(
        keys.map((key) => cut(key, 30)),
        ', ',
      )}`
    : 'JSON answer: empty';
}

/** The answer for a person who opens it: pretty-printed when it parsed, as written when not. */
export function prettyAnswer(part: Extract<ProsePart, { kind: 'answer' }>): string {
  return part.valid ? JSON.stringify(part.value, null, 2) : part.raw;
}
