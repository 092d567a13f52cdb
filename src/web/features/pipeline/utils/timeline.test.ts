import { describe, expect, it } from 'vitest';
import type { AgentLogEntry } from '../stores/run-state';
import { buildTimeline } from './timeline';
import { pendingLabel } from './tool-labels';

const prose = (id: number, chunk: string): AgentLogEntry => ({ kind: 'prose', id, chunk, timestamp: id });
const tool = (id: number, name = 'read_file'): AgentLogEntry => ({
  kind: 'tool',
  id,
  callId: `c${id}`,
  tool: name,
  input: { path: 'a.ts' },
  timestamp: id,
  result: null,
  checksBefore: 0,
  checkIndex: null,
});

describe('an agent’s timeline as drawn', () => {
  it('joins consecutive prose, gives each tool call a line, and drops blank prose', () => {
    const timeline = buildTimeline([
      prose(1, 'a'),
      prose(2, 'b'),
      tool(3),
      prose(4, '\n'),
      tool(5),
      prose(6, 'c'),
    ]);
    expect(timeline.items.map((item) => [item.kind, item.key])).toEqual([
      ['prose', 'p0'],
      ['tool', 't2'],
      ['tool', 't4'],
      ['prose', 'p5'],
    ]);
    expect(timeline.items[0]).toMatchObject({ text: 'ab' });
    expect(timeline.truncated).toBe(false);
  });

  it('draws only the end of a long log', () => {
    const entries = Array.from({ length: 10_000 }, (_, i) => (i % 2 ? tool(i) : prose(i, 'xxxxxxxxxx')));
    const timeline = buildTimeline(entries, { maxChars: 1_000, maxItems: 50 });
    expect(timeline.items.length).toBeLessThanOrEqual(51);
    expect(timeline.truncated).toBe(true);
    expect(timeline.hiddenEntries).toBeGreaterThan(9_000);
    expect(timeline.items.at(-1)?.key).toBe('t9999');
    const cut = buildTimeline([prose(1, 'abcdef')], { maxChars: 4, maxItems: 50 });
    expect(cut.items).toEqual([{ kind: 'prose', key: 'p0', text: 'cdef' }]);
    expect(cut.truncated).toBe(true);
  });

  it('keeps a one-shot answer of a megabyte whole, so it can be folded', () => {
    const answer = `\`\`\`json\n{"files": [{"filePath": "a.ts", "content": "${'x'.repeat(1_000_000)}"}]}\n\`\`\``;
    const chunks = Array.from({ length: 100 }, (_, i) =>
      prose(i, answer.slice(i * 10_100, (i + 1) * 10_100)),
    );
    const timeline = buildTimeline([...chunks, prose(100, answer.slice(1_010_000))]);
    expect(timeline.truncated).toBe(false);
    expect(timeline.items).toHaveLength(1);
    expect(timeline.items[0]).toMatchObject({ kind: 'prose', text: answer });
  });

  it('says what a call is doing from its input, whatever the model sent', () => {
    expect(pendingLabel('read_file', { path: 'src/board.ts', startLine: 1, endLine: 200 })).toBe(
      'Reading src/board.ts lines 1–200…',
    );
    expect(pendingLabel('search', { pattern: 'parseDate', glob: '*.ts' })).toBe(
      "Searching 'parseDate' in *.ts…",
    );
    expect(pendingLabel('edit_file', { path: 42 })).toBe('Editing a file…');
    expect(pendingLabel('run_check', {})).toBe('Running the check…');
    expect(pendingLabel('make_coffee', {})).toBe('Calling make_coffee…');
  });
});
