import { describe, expect, it } from 'vitest';
import { parsePrompt } from './prompt.js';

describe('parsePrompt', () => {
  it('falls back to a generic task when lines are missing', () => {
    const info = parsePrompt('no role here', 'hello');
    expect(info).toMatchObject({
      agent: undefined,
      task: { title: 'Untitled task', category: 'feature', description: '' },
      findings: [],
      reviewIteration: 0,
      changedFiles: [],
      currentFiles: [],
    });
    expect(parsePrompt('# Role: wizard', 'Task category: poetry').task.category).toBe('feature');
  });

  it('reads current files whose content holds shorter fences, and "(truncated)" headings', () => {
    const prompt = [
      'Task title: T',
      'Subtask 2/3: Extend',
      '## Current files',
      '### docs/a.md',
      '````',
      '# A',
      '```sh',
      'echo hi',
      '```',
      '````',
      '',
      '### src/b.ts (truncated)',
      '```',
      'export const b = 1;',
      '```',
      '',
      '### src/empty.ts',
      '```',
      '',
      '```',
      '## Later section',
      '### not/a/file.ts',
    ].join('\n');
    const info = parsePrompt('# Role: coder', prompt);
    expect(info.subtask).toEqual({ index: 2, total: 3, title: 'Extend' });
    expect(info.currentFiles).toEqual([
      { path: 'docs/a.md', content: '# A\n```sh\necho hi\n```\n' },
      { path: 'src/b.ts', content: 'export const b = 1;\n' },
      { path: 'src/empty.ts', content: '' },
    ]);
  });

  it('reads fix mode, findings, review iteration and changed files', () => {
    const prompt = [
      'Task title: T',
      'Task category: bug',
      'Task description:',
      'Line one.',
      'Line two.',
      '',
      'Mode: fix (iteration 2)',
      '## Review findings (score 55/100)',
      '- [error] src/a.ts:3 — null check',
      '- (no specific findings)',
      'Review iteration: 2',
      '## Changed files',
      '- `src/a.ts`',
      '- docs/b.md (modify)',
    ].join('\n');
    const info = parsePrompt('# Role: coder\n', prompt);
    expect(info.task.description).toBe('Line one.\nLine two.');
    expect(info.fixIteration).toBe(2);
    expect(info.findings).toEqual(['[error] src/a.ts:3 — null check']);
    expect(info.reviewIteration).toBe(2);
    expect(info.changedFiles).toEqual(['src/a.ts', 'docs/b.md']);
  });
});
