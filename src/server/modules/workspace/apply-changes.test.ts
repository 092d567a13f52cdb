import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FileChange, fileChangeSchema } from '@/contracts/pipeline.js';
import { AppError } from '@/server/lib/errors.js';
import { applyFileChanges } from './apply-changes.js';
import { readFilesForContext, type ShownCut, shownCut } from './context.js';
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

async function rejection(changes: FileChange[]): Promise<AppError> {
  const error = await applyFileChanges(t.repo, changes).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe('INVALID_AGENT_OUTPUT');
  return error as AppError;
}

describe('applyFileChanges', () => {
  it('creates nested files, modifies, deletes, and reports what it did', async () => {
    const { applied } = await applyFileChanges(t.repo, [
      change('src/deep/new/file.ts', 'create', 'export const x = "é";\n'),
      change('src/app.ts', 'modify', 'new\n'),
      change('src/old.ts', 'delete', ''),
      change('src/never-existed.ts', 'delete', ''),
      change('src/missing.ts', 'modify', 'lenient\n'),
      change('README.md', 'create', 'overwritten\n'),
      change('./docs//guide.md', 'create', 'guide\n'),
    ]);
    expect(applied).toEqual([
      { filePath: 'src/deep/new/file.ts', action: 'create' },
      { filePath: 'src/app.ts', action: 'modify' },
      { filePath: 'src/old.ts', action: 'delete' },
      { filePath: 'src/never-existed.ts', action: 'none' },
      { filePath: 'src/missing.ts', action: 'create' },
      { filePath: 'README.md', action: 'modify' },
      { filePath: 'docs/guide.md', action: 'create' },
    ]);
    expect(await readFile(path.join(t.repo, 'src/deep/new/file.ts'), 'utf8')).toBe('export const x = "é";\n');
    expect(await readFile(path.join(t.repo, 'src/app.ts'), 'utf8')).toBe('new\n');
    expect(existsSync(path.join(t.repo, 'src/old.ts'))).toBe(false);
    expect(await readFile(path.join(t.repo, 'src/missing.ts'), 'utf8')).toBe('lenient\n');
    expect(await readFile(path.join(t.repo, 'README.md'), 'utf8')).toBe('overwritten\n');
    expect(await readFile(path.join(t.repo, 'docs/guide.md'), 'utf8')).toBe('guide\n');
  });

  it('keeps the mode of a file it replaces', async () => {
    await chmod(path.join(t.repo, 'src/app.ts'), 0o755);
    await applyFileChanges(t.repo, [change('src/app.ts', 'modify', '#!/bin/sh\n')]);
    expect((await stat(path.join(t.repo, 'src/app.ts'))).mode & 0o777).toBe(0o755);
  });

  const badPaths: [string, string][] = [
    ['/etc/passwd', 'absolute'],
    ['C:/Windows/x', 'absolute'],
    ['../outside.txt', '..'],
    ['src/../../outside.txt', '..'],
    ['src\\app.ts', 'backslash'],
    ['src/a\0b', 'NUL'],
    ['.git/config', '.git'],
    ['a/.git/config', '.git'],
    ['.GIT/x', '.git'],
    ['sub/.Git/hooks/pre-commit', '.git'],
    ['.git./config', '.git'],
    ['', 'empty'],
    ['.', 'empty'],
    ['src/', 'directory'],
    ['src', 'directory'],
    ['line\nbreak', 'control'],
  ];
  for (const [bad, reason] of badPaths) {
    it(`refuses ${JSON.stringify(bad)} (${reason})`, async () => {
      const error = await rejection([change(bad)]);
      expect(error.details.paths).toEqual([bad]);
    });
  }

  it('refuses paths through a symlinked directory that points outside the worktree', async () => {
    const outside = path.join(t.root, 'outside');
    await mkdir(outside);
    await symlink(outside, path.join(t.repo, 'escape'));
    await symlink('../../outside', path.join(t.repo, 'src', 'relative-escape'));
    for (const bad of ['escape/pwned.txt', 'src/relative-escape/deeper/pwned.txt']) {
      const error = await rejection([change(bad)]);
      expect(error.message).toContain(bad);
      expect(error.message).toMatch(/symlink/);
    }
    expect(existsSync(path.join(outside, 'pwned.txt'))).toBe(false);
    expect(existsSync(path.join(outside, 'deeper'))).toBe(false);
  });

  it('refuses a symlink into .git, writing through a symlinked file, and a file used as a directory', async () => {
    await symlink('.git', path.join(t.repo, 'gitlink'));
    await symlink(path.join(t.repo, 'README.md'), path.join(t.repo, 'readme-link'));
    await symlink('/etc/hostname', path.join(t.repo, 'host-link'));
    await rejection([change('gitlink/config')]);
    await rejection([change('readme-link', 'modify')]);
    await rejection([change('host-link', 'delete')]);
    await rejection([change('README.md/child.txt')]);
    expect(await readFile(path.join(t.repo, 'README.md'), 'utf8')).toBe('# demo\n');
  });

  it('allows a symlinked directory that stays inside the worktree', async () => {
    await symlink('src', path.join(t.repo, 'src-link'));
    await applyFileChanges(t.repo, [change('src-link/via-link.ts', 'create', 'ok\n')]);
    expect(await readFile(path.join(t.repo, 'src/via-link.ts'), 'utf8')).toBe('ok\n');
  });

  it('refuses duplicates and a path that is also the parent of another', async () => {
    const dup = await rejection([change('src/a.ts'), change('src/./a.ts', 'modify')]);
    expect(dup.details.paths).toEqual(['src/./a.ts']);
    const parent = await rejection([change('lib'), change('lib/inner.ts')]);
    expect(parent.details.paths).toEqual(['lib']);
  });

  it('applies nothing when one path of the batch is bad, and names every bad one', async () => {
    const error = await rejection([
      change('good/one.ts', 'create', 'one'),
      change('src/app.ts', 'modify', 'changed'),
      change('src/old.ts', 'delete', ''),
      change('a/.git/config'),
      change('../escape.txt'),
    ]);
    expect(error.details.paths).toEqual(['a/.git/config', '../escape.txt']);
    expect(error.message).toContain('a/.git/config');
    expect(error.message).toContain('../escape.txt');
    expect(existsSync(path.join(t.repo, 'good'))).toBe(false);
    expect(await readFile(path.join(t.repo, 'src/app.ts'), 'utf8')).toBe('old\n');
    expect(existsSync(path.join(t.repo, 'src/old.ts'))).toBe(true);
  });

  it('never deletes a directory', async () => {
    await mkdir(path.join(t.repo, 'folder'));
    await writeFile(path.join(t.repo, 'folder/file.txt'), 'x');
    await rejection([change('folder', 'delete', '')]);
    expect(existsSync(path.join(t.repo, 'folder/file.txt'))).toBe(true);
  });
});

describe('applyFileChanges after a context that showed files cut', () => {
  const big = `${Array.from({ length: 400 }, (_, i) => `export const line${i} = ${i};`).join('\n')}\n`;
  let shown: ShownCut[];

  beforeEach(async () => {
    await commitFiles(t.repo, { 'src/big.ts': big }, 'a big file');
    // src/app.ts fits whole; src/big.ts gets the rest of a 100-character window.
    const files = await readFilesForContext(t.repo, ['src/app.ts', 'src/big.ts'], 100);
    expect(files.map((f) => [f.path, f.truncated])).toEqual([
      ['src/app.ts', false],
      ['src/big.ts', true],
    ]);
    shown = shownCut(files);
  });

  async function refusal(changes: FileChange[]): Promise<AppError> {
    const error = await applyFileChanges(t.repo, changes, { shownCut: shown }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('INVALID_AGENT_OUTPUT');
    return error as AppError;
  }

  const untouched = async () => {
    expect(await readFile(path.join(t.repo, 'src/big.ts'), 'utf8')).toBe(big);
    expect(await readFile(path.join(t.repo, 'src/app.ts'), 'utf8')).toBe('old\n');
    expect(existsSync(path.join(t.repo, 'src/new.ts'))).toBe(false);
  };

  it('refuses a rewrite of a cut file as a whole, naming it and what was shown of it', async () => {
    const error = await refusal([
      change('src/new.ts', 'create', 'export const fresh = 1;\n'),
      change('src/app.ts', 'modify', 'new\n'),
      change('src/big.ts', 'modify', 'export const line0 = 0;\n'),
    ]);
    expect(error.message).toBe(
      'The coder rewrote src/big.ts, which it was shown only in part (its first 96 characters, 4 lines, ' +
        `of a ${big.length.toLocaleString('en-US')}-byte file); nothing was applied. ` +
        'A file shown in part can only be changed with "edit" search/replace blocks.',
    );
    expect(error.details.paths).toEqual(['src/big.ts']);
    await untouched();
  });

  it('refuses deleting it, "creating" it, and reaching it by another spelling or a symlinked directory', async () => {
    await symlink('src', path.join(t.repo, 'src-link'));
    for (const attempt of [
      change('src/big.ts', 'delete', ''),
      change('src/big.ts', 'create', 'x'),
      change('./src//big.ts', 'modify', 'x'),
      change('src-link/big.ts', 'modify', 'x'),
    ]) {
      const error = await refusal([change('src/new.ts', 'create', 'y'), attempt]);
      expect(error.message).toContain('src/big.ts');
      expect(error.message).toMatch(/^The coder (rewrote|deleted) /);
      await untouched();
    }
  });

  it('applies an answer that leaves the cut file alone: files shown whole and new files', async () => {
    const { applied } = await applyFileChanges(
      t.repo,
      [change('src/app.ts', 'modify', 'new\n'), change('src/new.ts', 'create', 'y')],
      { shownCut: shown },
    );
    expect(applied.map((a) => a.action)).toEqual(['modify', 'create']);
    expect(await readFile(path.join(t.repo, 'src/big.ts'), 'utf8')).toBe(big);
  });

  it('applies an edit of the cut file, even in the part it was not shown, keeping the rest', async () => {
    const { applied, recorded } = await applyFileChanges(
      t.repo,
      [edit('src/big.ts', { search: 'export const line1 = 1;\n', replace: 'export const line1 = -1;\n' })],
      { shownCut: shown },
    );
    expect(applied).toEqual([{ filePath: 'src/big.ts', action: 'modify' }]);
    const expected = big.replace('line1 = 1;', 'line1 = -1;');
    expect(await readFile(path.join(t.repo, 'src/big.ts'), 'utf8')).toBe(expected);
    expect(recorded).toEqual([
      { filePath: 'src/big.ts', language: 'typescript', content: expected, action: 'modify' },
    ]);
    // The last line was never shown; a unique search still reaches it.
    await applyFileChanges(
      t.repo,
      [edit('src/big.ts', { search: 'line399 = 399;', replace: 'line399 = 0;' })],
      {
        shownCut: shown,
      },
    );
    expect(await readFile(path.join(t.repo, 'src/big.ts'), 'utf8')).toBe(
      expected.replace('399 = 399', '399 = 0'),
    );
  });

  it('refuses an edit of the cut file whose search also occurs in the part it was not shown', async () => {
    const error = await refusal([
      change('src/new.ts', 'create', 'y'),
      edit('src/big.ts', { search: 'export const line3', replace: 'export const renamed' }),
    ]);
    // line3, line30…line39 and line300…line399.
    expect(error.message).toContain('src/big.ts block 1: its search text was found 111 times');
    await untouched();
  });
});

/** An edit answer as the coder gives it, parsed by the contract. */
function edit(filePath: string, ...edits: { search: string; replace: string }[]): FileChange {
  return fileChangeSchema.parse({ filePath, language: 'typescript', action: 'edit', edits });
}
