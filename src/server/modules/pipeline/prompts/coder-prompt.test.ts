import { describe, expect, it } from 'vitest';
import { type FileChanges, fileChangesSchema } from '@/contracts/pipeline.js';
import type { ContextFile } from '../../workspace/context.js';
import { buildCoderSystemPrompt, buildCoderUserPrompt } from './coder-prompt.js';

const task = { title: 'Big', description: 'Change a value.', category: 'feature' } as const;

function userPrompt(currentFiles: ContextFile[]): string {
  return buildCoderUserPrompt({ task, subtask: null, previousOutputs: [], currentFiles });
}

describe('the one-shot coder prompt', () => {
  it('lists both answer forms, whole files and edits, and each parses', () => {
    const system = buildCoderSystemPrompt();
    const format = system.slice(system.indexOf('{"files":['));
    expect(format).toContain('"action":"create"|"modify"|"delete"');
    expect(format).toContain('"action":"edit","edits":[{"search":"…","replace":"…"}]');
    expect(system).toContain(
      'A file marked "(truncated: …)" was shown only in part: change it ONLY with "edit"',
    );
    const example: FileChanges = fileChangesSchema.parse(
      JSON.parse(format.replaceAll('"create"|"modify"|"delete"', '"create"')),
    );
    expect(example.files.map((f) => f.action)).toEqual(['create', 'modify']);
    expect(example.files[1]).toMatchObject({ filePath: 'src/y.ts', edits: [{ search: '…', replace: '…' }] });
  });

  it('marks a file shown cut with what was shown and that it may only be edited; a whole file plainly', () => {
    const prompt = userPrompt([
      { path: 'src/small.ts', content: 'export const a = 1;\n', truncated: false, size: 20 },
      { path: 'src/big.ts', content: 'line 1\nline 2\nli', truncated: true, size: 250_000 },
    ]);
    const headings = prompt.split('\n').filter((line) => line.startsWith('### '));
    expect(headings).toEqual([
      '### src/small.ts',
      '### src/big.ts (truncated: shown its first 16 characters, 3 lines, of a 250,000-byte file — do not ' +
        'replace or delete this file; change it only with "edit" search/replace blocks copied from the lines shown)',
    ]);
    // The shown part follows as it is, for searches to be copied from.
    expect(prompt).toContain('```\nline 1\nline 2\nli\n```');
  });
});
