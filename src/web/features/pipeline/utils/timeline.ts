import type { AgentLogEntry, ToolEntry, UsageEntry } from '../stores/run-state';

/** One line of an agent's timeline as drawn: a run of prose, a tool call, or a step's usage. */
export type TimelineItem =
  | { kind: 'prose'; key: string; text: string }
  | { kind: 'tool'; key: string; entry: ToolEntry }
  | { kind: 'usage'; key: string; entry: UsageEntry };

export interface Timeline {
  items: TimelineItem[];
  /** Entries before the first one drawn (the log holds more than is drawn). */
  hiddenEntries: number;
  /** Something was left out: earlier entries, or the beginning of the earliest prose drawn. */
  truncated: boolean;
  /** Grows whenever what is drawn does: what keeps the box following the latest line. */
  size: number;
}

export interface TimelineLimits {
  /** Prose characters drawn, from the end. */
  maxChars: number;
  /** Lines drawn, from the end. */
  maxItems: number;
}

/**
 * Generous on characters: a one-shot coder's JSON answer (up to a megabyte) must reach the prose
 * block whole to be folded; the text a block draws is capped there.
 */
export const TIMELINE_LIMITS: TimelineLimits = { maxChars: 2_000_000, maxItems: 600 };

/**
 * The end of an agent's timeline as lines: consecutive prose chunks joined into one text, each tool
 * call and step usage a line of its own. It walks back from the newest entry and stops at the
 * limits, so a log of thousands of events costs only what is drawn. Keys are entry positions, which
 * never change (entries are only appended, a result replaces its call in place).
 */
export function buildTimeline(
  entries: readonly AgentLogEntry[],
  limits: TimelineLimits = TIMELINE_LIMITS,
): Timeline {
  const items: TimelineItem[] = [];
  let chars = 0;
  let size = 0;
  let prose: string[] = [];
  let proseStart = -1;
  let cut = false;
  const flushProse = () => {
    if (prose.length === 0) return;
    const text = prose.reverse().join('');
    // Blank prose (the line breaks between tool calls) draws nothing.
    if (text.trim()) items.push({ kind: 'prose', key: `p${proseStart}`, text });
    prose = [];
  };
  let index = entries.length - 1;
  for (; index >= 0; index--) {
    const entry = entries[index];
    if (!entry) continue;
    if (entry.kind === 'prose') {
      const room = limits.maxChars - chars;
      if (room <= 0) break;
      const chunk = entry.chunk.length > room ? entry.chunk.slice(-room) : entry.chunk;
      prose.push(chunk);
      proseStart = index;
      chars += chunk.length;
      size += chunk.length;
      if (chunk.length < entry.chunk.length) {
        cut = true;
        index--;
        break;
      }
      continue;
    }
    flushProse();
    if (items.length >= limits.maxItems) break;
    if (entry.kind === 'tool') {
      items.push({ kind: 'tool', key: `t${index}`, entry });
      size += entry.result ? 2 : 1;
    } else {
      items.push({ kind: 'usage', key: `u${index}`, entry });
      size += 1;
    }
  }
  flushProse();
  const hiddenEntries = Math.max(0, index + 1);
  return { items: items.reverse(), hiddenEntries, truncated: cut || hiddenEntries > 0, size };
}
