import { existsSync } from 'node:fs';
import { readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FileChange, fileChangeSchema, fileChangesSchema } from '@/contracts/pipeline.js';
import { AppError } from '@/server/lib/errors.js';
import { applyEdits, applyFileChanges } from './apply-changes.js';
import { commitFiles, makeRepo, type TempRepo } from './test-repo.js';

let t: TempRepo;
beforeEach(async () => {
  t = await makeRepo();
  await commitFiles(t.repo, { 'src/app.ts': 'old\n', 'src/old.ts': 'gone soon\n' }, 'files');
});
afterEach(async () => t.cleanup());

const change = (filePath: string, action: FileChange['action'] = 'create', content = 'x'): FileChange => ({
  filePath,
  action,
  content,
  language: 'text',
});

/** An edit answer as the coder gives it, parsed by the contract. */
function edit(filePath: string, ...edits: { search: string; replace: string }[]): FileChange {
  return fileChangeSchema.parse({ filePath, language: 'typescript', action: 'edit', edits });
}

async function rejection(changes: FileChange[]): Promise<AppError> {
  const error = await applyFileChanges(t.repo, changes).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe('INVALID_AGENT_OUTPUT');
  return error as AppError;
}

describe("the coder's answer form", () => {
  it('takes complete contents as before, and edits without content', () => {
    const whole = { filePath: 'a.ts', language: 'typescript', content: 'x', action: 'modify' };
    expect(fileChangeSchema.parse(whole)).toEqual(whole);
    expect(
      fileChangeSchema.parse({
        filePath: 'a.ts',
        language: 'typescript',
        action: 'edit',
        edits: [{ search: 'a', replace: '' }],
      }),
    ).toEqual({
      filePath: 'a.ts',
      language: 'typescript',
      content: '',
      action: 'modify',
      edits: [{ search: 'a', replace: '' }],
    });
  });

  it('refuses an edit without blocks, with an empty search, or with too many or too large blocks', () => {
    const base = { filePath: 'a.ts', language: 'typescript', action: 'edit' };
    for (const edits of [
      undefined,
      [],
      [{ search: '', replace: 'x' }],
      [{ search: 'x' }],
      Array.from({ length: 101 }, () => ({ search: 'x', replace: 'y' })),
      [{ search: 'x'.repeat(100_001), replace: '' }],
      [{ search: 'x', replace: 'y'.repeat(100_001) }],
    ]) {
      expect(fileChangeSchema.safeParse({ ...base, edits }).success).toBe(false);
    }
    // An edit is not a whole-file action: no content makes a "modify" invalid as before.
    expect(
      fileChangeSchema.safeParse({ ...base, action: 'modify', edits: [{ search: 'x', replace: 'y' }] })
        .success,
    ).toBe(false);
    expect(
      fileChangesSchema.safeParse({ files: [{ ...base, edits: [{ search: 'x', replace: 'y' }] }] }).success,
    ).toBe(true);
  });
});

describe('applyFileChanges with edits', () => {
  const source =
    "export function greet(name: string) {\n  return 'Hello, ' + name;\n}\n\nexport const a = 1;\nexport const a2 = 1;\n";

  beforeEach(async () => {
    await commitFiles(t.repo, { 'src/greet.ts': source }, 'greet');
  });

  it('replaces the one occurrence of a search, keeping every other byte, and records a modify', async () => {
    const { applied, recorded } = await applyFileChanges(t.repo, [
      edit('src/greet.ts', {
        search: "  return 'Hello, ' + name;\n",
        replace: "  return 'Hi, ' + name + '!';\n",
      }),
    ]);
    const expected = source.replace("'Hello, ' + name;", "'Hi, ' + name + '!';");
    expect(await readFile(path.join(t.repo, 'src/greet.ts'), 'utf8')).toBe(expected);
    expect(applied).toEqual([{ filePath: 'src/greet.ts', action: 'modify' }]);
    expect(recorded).toEqual([
      { filePath: 'src/greet.ts', language: 'typescript', content: expected, action: 'modify' },
    ]);
  });

  it('records whole-file changes as the answer gave them', async () => {
    const changes = [change('src/app.ts', 'modify', 'new\n'), change('src/old.ts', 'delete', '')];
    const { recorded } = await applyFileChanges(t.repo, changes);
    expect(recorded).toEqual(changes);
  });

  it('applies several blocks in order, each on the result of the ones before', async () => {
    await applyFileChanges(t.repo, [
      edit(
        'src/greet.ts',
        { search: 'export const a = 1;', replace: 'export const b = 1;' },
        // Only there once the first block has run.
        { search: 'export const b = 1;\nexport const a2', replace: 'export const b = 2;\nexport const b2' },
        { search: 'greet(', replace: 'welcome(' },
      ),
    ]);
    expect(await readFile(path.join(t.repo, 'src/greet.ts'), 'utf8')).toBe(
      source
        .replace('greet(', 'welcome(')
        .replace('export const a = 1;\nexport const a2', 'export const b = 2;\nexport const b2'),
    );
  });

  it('refuses a search that is not found, naming the file and the block; nothing is applied', async () => {
    const error = await rejection([
      change('src/new.ts', 'create', 'fresh\n'),
      edit(
        'src/greet.ts',
        { search: 'greet(', replace: 'welcome(' },
        { search: "return 'Hello'", replace: 'x' },
      ),
    ]);
    expect(error.message).toBe(
      "The coder's edits could not be applied; nothing was applied. src/greet.ts block 2: its search text " +
        'was not found (copy it exactly, whitespace included).',
    );
    expect(error.details).toEqual({
      paths: ['src/greet.ts'],
      problems: [
        {
          path: 'src/greet.ts',
          block: 2,
          reason: 'its search text was not found (copy it exactly, whitespace included)',
        },
      ],
    });
    expect(existsSync(path.join(t.repo, 'src/new.ts'))).toBe(false);
    expect(await readFile(path.join(t.repo, 'src/greet.ts'), 'utf8')).toBe(source);
  });

  it('refuses a search found several times, overlapping ones counted, saying how many', async () => {
    const several = await rejection([edit('src/greet.ts', { search: 'export const a', replace: 'x' })]);
    expect(several.message).toContain(
      'src/greet.ts block 1: its search text was found 2 times (it must occur once: include more lines)',
    );
    await commitFiles(t.repo, { 'src/aaa.txt': 'aaa\n' }, 'aaa');
    const overlapping = await rejection([edit('src/aaa.txt', { search: 'aa', replace: 'b' })]);
    expect(overlapping.message).toContain('src/aaa.txt block 1: its search text was found 2 times');
    expect(await readFile(path.join(t.repo, 'src/greet.ts'), 'utf8')).toBe(source);
  });

  it('applies nothing of an answer across files when one edit of it is refused, and names every one', async () => {
    await commitFiles(t.repo, { 'src/other.ts': 'one\ntwo\n' }, 'other');
    const error = await rejection([
      change('src/new.ts', 'create', 'fresh\n'),
      change('src/app.ts', 'modify', 'new\n'),
      change('src/old.ts', 'delete', ''),
      edit('src/greet.ts', { search: 'greet(', replace: 'welcome(' }),
      edit('src/other.ts', { search: 'one', replace: '1' }, { search: 'three', replace: '3' }),
      edit('src/missing.ts', { search: 'x', replace: 'y' }),
    ]);
    expect(error.details.paths).toEqual(['src/other.ts', 'src/missing.ts']);
    expect(error.message).toContain('src/other.ts block 2: its search text was not found');
    expect(error.message).toContain('src/missing.ts: does not exist');
    expect(existsSync(path.join(t.repo, 'src/new.ts'))).toBe(false);
    expect(await readFile(path.join(t.repo, 'src/app.ts'), 'utf8')).toBe('old\n');
    expect(existsSync(path.join(t.repo, 'src/old.ts'))).toBe(true);
    expect(await readFile(path.join(t.repo, 'src/greet.ts'), 'utf8')).toBe(source);
    expect(await readFile(path.join(t.repo, 'src/other.ts'), 'utf8')).toBe('one\ntwo\n');
  });

  it('refuses edits of unsafe paths, a symlink, a binary file and a file that is not UTF-8', async () => {
    await symlink('greet.ts', path.join(t.repo, 'src/greet-link.ts'));
    await writeFile(path.join(t.repo, 'src/blob.bin'), Buffer.from([0x61, 0x00, 0x62]));
    await writeFile(path.join(t.repo, 'src/latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    for (const [filePath, reason] of [
      ['../outside.ts', '..'],
      ['.git/config', '.git'],
      ['src/greet-link.ts', 'is a symlink'],
      ['src/blob.bin', 'is binary'],
      ['src/latin1.txt', 'is not UTF-8 text'],
    ] as const) {
      const error = await rejection([edit(filePath, { search: 'a', replace: 'b' })]);
      expect(error.details.paths).toEqual([filePath]);
      if (reason.includes(' ')) expect(error.message).toContain(reason);
    }
    expect(await readFile(path.join(t.repo, 'src/greet.ts'), 'utf8')).toBe(source);
  });

  it('edits a file through a symlinked directory that stays inside the worktree', async () => {
    await symlink('src', path.join(t.repo, 'src-link'));
    const { recorded } = await applyFileChanges(t.repo, [
      edit('src-link/greet.ts', { search: 'export const a = 1;', replace: 'export const a = 0;' }),
    ]);
    const expected = source.replace('a = 1;', 'a = 0;');
    expect(await readFile(path.join(t.repo, 'src/greet.ts'), 'utf8')).toBe(expected);
    expect(recorded).toEqual([
      { filePath: 'src-link/greet.ts', language: 'typescript', content: expected, action: 'modify' },
    ]);
  });

  it('keeps a byte order mark and non-ASCII text byte for byte', async () => {
    const text = '\ufeff// café ☕ 𝄞\nconst x = "é";\n';
    await writeFile(path.join(t.repo, 'src/bom.ts'), text);
    await applyFileChanges(t.repo, [edit('src/bom.ts', { search: 'const x', replace: 'const y' })]);
    expect(
      (await readFile(path.join(t.repo, 'src/bom.ts'))).equals(Buffer.from(text.replace('x', 'y'))),
    ).toBe(true);
  });
});

describe('applyEdits and CRLF line breaks', () => {
  const crlf = 'one\r\ntwo\r\nthree\r\n';

  it('matches a search written with LF against CRLF lines, and gives its replacement CRLF', () => {
    expect(applyEdits(crlf, [{ search: 'one\ntwo\n', replace: 'uno\ndos\n' }])).toBe(
      'uno\r\ndos\r\nthree\r\n',
    );
    // A one-line search: the replacement's new lines follow the file.
    expect(applyEdits(crlf, [{ search: 'two', replace: '2\n2b' }])).toBe('one\r\n2\r\n2b\r\nthree\r\n');
    // Written with CRLF, it matches as it is.
    expect(applyEdits(crlf, [{ search: 'two\r\nthree', replace: 'x\r\ny' }])).toBe('one\r\nx\r\ny\r\n');
  });

  it('leaves LF files and LF lines of a mixed file as the answer wrote them', () => {
    expect(applyEdits('a\nb\n', [{ search: 'a\n', replace: 'c\r\nd\n' }])).toBe('c\r\nd\nb\n');
    const mixed = 'a\r\nb\nc\r\n';
    expect(applyEdits(mixed, [{ search: 'b\nc', replace: 'B\nC' }])).toBe('a\r\nB\nC\r\n');
    expect(applyEdits(mixed, [{ search: 'a\nb', replace: 'A\nB' }])).toBe('A\r\nB\nc\r\n');
  });

  it('stops counting a search found 10,000 times', () => {
    expect(applyEdits('a'.repeat(20_000), [{ search: 'a', replace: 'b' }])).toEqual({
      block: 1,
      reason: 'its search text was found 10,000 times or more (it must occur once: include more lines)',
    });
  });

  it('counts CRLF matches of an LF search as it counts exact ones', () => {
    expect(applyEdits('x\r\ny\r\nx\r\ny\r\n', [{ search: 'x\ny', replace: 'z' }])).toEqual({
      block: 1,
      reason: 'its search text was found 2 times (it must occur once: include more lines)',
    });
  });
});
