import { describe, expect, it } from 'vitest';
import type { ServiceOutputEvent } from '@/contracts/services';
import { appendOutput, EMPTY_OUTPUT } from './output-lines';

const at = '2026-11-23T10:30:00.000Z';
const out = (data: string): ServiceOutputEvent => ({ type: 'stdout', data, timestamp: at });
const err = (data: string): ServiceOutputEvent => ({ type: 'stderr', data, timestamp: at });
const texts = (state: typeof EMPTY_OUTPUT) => state.lines.map((line) => `${line.stream}:${line.text}`);

describe('appendOutput', () => {
  it('joins pieces of a stream until a newline and keeps stdout and stderr apart', () => {
    let state = appendOutput(EMPTY_OUTPUT, [out('listen'), out('ing on 3000\nready'), err('warn\n')]);
    expect(texts(state)).toEqual(['stdout:listening on 3000', 'stdout:ready', 'stderr:warn']);
    state = appendOutput(state, [out(' now\n')]);
    expect(texts(state)).toEqual(['stdout:listening on 3000', 'stdout:ready', 'stderr:warn', 'stdout: now']);
  });

  it('keeps the ids of unchanged lines and records the exit code', () => {
    const first = appendOutput(EMPTY_OUTPUT, [out('a\nb')]);
    const next = appendOutput(first, [out('c\n'), { type: 'exit', exitCode: 3, timestamp: at }]);
    expect(next.lines[0]).toBe(first.lines[0]);
    expect(next.lines[1]).toMatchObject({ id: first.lines[1]?.id, text: 'bc', complete: true });
    expect(next.exitCode).toBe(3);
  });

  it('keeps only the last lines past the cap, counting the dropped ones', () => {
    const events = Array.from({ length: 12 }, (_, i) => out(`line ${i}\n`));
    const state = appendOutput(EMPTY_OUTPUT, events, 5);
    expect(state.lines.map((line) => line.text)).toEqual([
      'line 7',
      'line 8',
      'line 9',
      'line 10',
      'line 11',
    ]);
    expect(state.dropped).toBe(7);
    expect(appendOutput(state, [out('x\ny\n')], 5).dropped).toBe(9);
  });
});
