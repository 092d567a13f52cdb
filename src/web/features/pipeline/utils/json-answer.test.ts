import { describe, expect, it } from 'vitest';
import { splitProse, summarizeAnswer } from './json-answer';

describe('agents’ JSON answers in their prose', () => {
  it('splits prose around ```json blocks, a block still being written left open', () => {
    expect(splitProse('Plan below.\n```json\n{"subtasks": []}\n```\nThat is all.')).toEqual([
      { kind: 'text', text: 'Plan below.\n' },
      { kind: 'answer', raw: '{"subtasks": []}\n', closed: true, valid: true, value: { subtasks: [] } },
      { kind: 'text', text: 'That is all.' },
    ]);
    expect(splitProse('Here:\n```json\n{"files": [')).toEqual([
      { kind: 'text', text: 'Here:\n' },
      { kind: 'answer', raw: '{"files": [', closed: false, valid: false, value: undefined },
    ]);
    expect(splitProse('```json\n{"a": \n```')[0]).toMatchObject({ closed: true, valid: false });
    // Other fences are prose.
    expect(splitProse('Run:\n```sh\nnpm test\n```\n')).toEqual([
      { kind: 'text', text: 'Run:\n```sh\nnpm test\n```\n' },
    ]);
  });

  it('takes prose that is nothing but a JSON object for an answer', () => {
    expect(splitProse('  {"passed": true, "score": 90, "findings": []}\n')).toEqual([
      {
        kind: 'answer',
        raw: '{"passed": true, "score": 90, "findings": []}',
        closed: true,
        valid: true,
        value: { passed: true, score: 90, findings: [] },
      },
    ]);
    expect(splitProse('{"passed": tr')[0]).toMatchObject({ kind: 'answer', closed: false });
  });

  it('sums up files, plans and reviews in one line', () => {
    const file = (filePath: string, action: string) => ({ filePath, action, language: 'ts', content: '' });
    expect(summarizeAnswer({ files: [file('src/a.ts', 'modify'), file('src/b.ts', 'create')] })).toBe(
      'Answer: 2 files — src/a.ts (modify), src/b.ts (create)',
    );
    expect(
      summarizeAnswer({ files: ['a', 'b', 'c', 'd', 'e'].map((name) => file(`${name}.ts`, 'modify')) }),
    ).toBe('Answer: 5 files — a.ts (modify), b.ts (modify), c.ts (modify), +2 more');
    expect(summarizeAnswer({ files: [] })).toBe('Answer: no files');
    expect(
      summarizeAnswer({ files: [{ filePath: 'src/a.ts', action: 'edit', edits: [{}, {}], language: 'ts' }] }),
    ).toBe('Answer: 1 file — src/a.ts (edit, 2 blocks)');
    expect(
      summarizeAnswer({ subtasks: [{ title: 'Write it' }, { title: 'Test it' }, { title: 'Ship' }] }),
    ).toBe('Plan: 3 subtasks — Write it · Test it · Ship');
    expect(summarizeAnswer({ passed: true, score: 88, findings: [{}, {}] })).toBe(
      'Review: passed, score 88, 2 findings',
    );
    expect(summarizeAnswer({ passed: false, score: 40, findings: [{}] })).toBe(
      'Review: failed, score 40, 1 finding',
    );
    expect(summarizeAnswer({ other: 1 })).toBe('JSON answer: other');
    expect(summarizeAnswer(null)).toBe('JSON answer');
  });
});
