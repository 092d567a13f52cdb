import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DiffFileContent, RunDiff } from '@/contracts/diff.js';
import type { ReviewResult } from '@/contracts/pipeline.js';
import { signedInClient, TestClient } from '@/server/testing/test-app.js';
import { commitFiles } from '../workspace/test-repo.js';
import { streamText } from './testing/llm-proxy.js';
import {
  createProxiedTestApp,
  gitIn,
  LONG_TEST_MS,
  newTask,
  type ProxiedTestApp,
  repoOf,
  runRow,
  startOk,
  statusOf,
  type TaskSetup,
} from './testing/run-kit.js';

let env: ProxiedTestApp;
beforeAll(async () => {
  env = await createProxiedTestApp();
});
afterAll(async () => env.close());

type ErrorBody = { error: string; message: string; [key: string]: unknown };
const diffOf = (setup: TaskSetup, runId: string) =>
  setup.client.get<RunDiff & ErrorBody>(`/api/pipeline/runs/${runId}/diff`);
const fileOf = (setup: TaskSetup, runId: string, query: string) =>
  setup.client.get<DiffFileContent & ErrorBody>(`/api/pipeline/runs/${runId}/diff/file?${query}`);
const pathQuery = (filePath: string) => `path=${encodeURIComponent(filePath)}`;

/** The reviewer's answer for every run of these tests: it passes, with findings on several files. */
const REVIEW: ReviewResult = {
  passed: true,
  score: 90,
  findings: [
    { severity: 'error', file: 'src/renamed.ts', line: 2, message: 'on the renamed file' },
    { severity: 'warning', file: 'b/docs/guide.md', line: 1, message: 'named with a diff prefix' },
    { severity: 'info', file: 'src/old-name.ts', line: 1, message: 'named by its old path' },
    { severity: 'info', file: 'nowhere/else.ts', line: 3, message: 'about a file the diff does not change' },
  ],
};

const lines = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, i) => `${prefix} ${i}`).join('\n');

describe('the diff of a passed run with a commit of every kind on its branch', () => {
  let setup: TaskSetup;
  let runId: string;
  let repoPath: string;
  let baseCommit: string;
  let headCommit: string;
  let diff: RunDiff;

  beforeAll(async () => {
    setup = await newTask(env.t, { title: 'Add greeting helper' });
    repoPath = (await repoOf(env.t, setup.projectId)).repoPath;
    // What the run starts from: files it will modify, delete and rename.
    await commitFiles(
      repoPath,
      {
        'src/keep.ts': 'export const a = 1;\nexport const b = 2;\n',
        'src/gone.ts': 'export const gone = true;\n',
        'src/old-name.ts': `${lines(20, '// line')}\n`,
        'docs/guide.md': '# Guide\n',
      },
      'Files the run starts from',
    );
    env.proxy.respondWith((seen, res) => {
      if (seen.agent !== 'reviewer') return false;
      streamText(res, `Reviewed.\n\n\`\`\`json\n${JSON.stringify(REVIEW)}\n\`\`\`\n`);
      return true;
    });
    runId = await startOk(setup.client, setup.taskId, {});
    await env.t.deps.orchestrator.idle();
    env.proxy.respondWith(undefined);
    const run = await statusOf(setup.client, setup.taskId);
    expect(run.status).toBe('passed');
    baseCommit = run.baseCommit ?? '';

    // The worktree is kept until approval: a person (or a later step) commits on the branch.
    const worktree = (await runRow(env.t, runId)).worktreePath ?? '';
    await writeFile(path.join(worktree, 'src/keep.ts'), 'export const a = 1;\nexport const b = 3;\n');
    await rm(path.join(worktree, 'src/gone.ts'));
    await gitIn(worktree, ['mv', 'src/old-name.ts', 'src/renamed.ts']);
    await writeFile(path.join(worktree, 'docs/guide.md'), '# Guide\n\nMore.\n');
    await writeFile(path.join(worktree, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]));
    await mkdir(path.join(worktree, 'data'), { recursive: true });
    await writeFile(path.join(worktree, 'data/big.csv'), `${lines(2500, 'row')}\n`);
    // About 5 MB in 60,000 lines.
    await writeFile(path.join(worktree, 'data/huge.txt'), `${lines(60_000, 'x'.repeat(80))}\n`);
    headCommit = await commitFiles(worktree, {}, 'More changes');

    const res = await diffOf(setup, runId);
    expect(res.status).toBe(200);
    diff = res.body;
  }, LONG_TEST_MS);

  const file = (filePath: string) => {
    const found = diff.files.find((f) => f.path === filePath);
    if (!found) throw new Error(`${filePath} is not in the diff`);
    return found;
  };

  it('goes from the run’s base to its branch’s head now, and sums its files', () => {
    expect(diff).toMatchObject({ runId, baseCommit, headCommit });
    expect(diff.stats.filesChanged).toBe(diff.files.length);
    expect(diff.stats.additions).toBe(diff.files.reduce((sum, f) => sum + f.additions, 0));
    expect(diff.stats.deletions).toBe(diff.files.reduce((sum, f) => sum + f.deletions, 0));
    // The simulator's files are there too, as added files.
    expect(
      diff.files.filter((f) => f.status === 'added' && f.language === 'typescript').length,
    ).toBeGreaterThan(0);
  });

  it('tells added, modified, deleted, renamed and binary files apart, each with its own patch', () => {
    expect(file('src/keep.ts')).toMatchObject({
      status: 'modified',
      oldPath: null,
      language: 'typescript',
      binary: false,
      additions: 1,
      deletions: 1,
      truncated: false,
    });
    expect(file('src/keep.ts').patch).toMatch(/^diff --git a\/src\/keep.ts b\/src\/keep.ts\n/);
    expect(file('src/keep.ts').patch).toContain('-export const b = 2;\n+export const b = 3;\n');
    expect(file('src/gone.ts')).toMatchObject({ status: 'deleted', additions: 0, deletions: 1 });
    expect(file('src/gone.ts').patch).toContain('-export const gone = true;');
    expect(file('src/renamed.ts')).toMatchObject({ status: 'renamed', oldPath: 'src/old-name.ts' });
    expect(file('src/renamed.ts').patch).toContain('rename from src/old-name.ts');
    expect(file('docs/guide.md')).toMatchObject({ status: 'modified', language: 'markdown' });
    expect(file('logo.png')).toMatchObject({ status: 'added', binary: true, patch: '', additions: 0 });
    for (const f of diff.files) {
      if (f.patch) expect(f.patch.match(/^diff --git /gm)).toHaveLength(1);
    }
  });

  it('leaves out the patch of a file over 2,000 changed lines, keeping its stats', () => {
    expect(file('data/big.csv')).toMatchObject({ additions: 2500, truncated: true, patch: '' });
    expect(file('data/huge.txt')).toMatchObject({ additions: 60_000, truncated: true, patch: '' });
  });

  it('pins the last review’s findings to their files, and keeps the others general', () => {
    expect(file('src/renamed.ts').findings).toEqual([
      { severity: 'error', line: 2, message: 'on the renamed file' },
      { severity: 'info', line: 1, message: 'named by its old path' },
    ]);
    expect(file('docs/guide.md').findings).toEqual([
      { severity: 'warning', line: 1, message: 'named with a diff prefix' },
    ]);
    expect(file('src/keep.ts').findings).toEqual([]);
    expect(diff.generalFindings).toEqual([
      {
        severity: 'info',
        file: 'nowhere/else.ts',
        line: 3,
        message: 'about a file the diff does not change',
      },
    ]);
  });

  it('serves both versions of a file and its patch', async () => {
    const keep = await fileOf(setup, runId, pathQuery('src/keep.ts'));
    expect(keep.status).toBe(200);
    expect(keep.body).toEqual({
      path: 'src/keep.ts',
      oldPath: null,
      status: 'modified',
      language: 'typescript',
      binary: false,
      before: 'export const a = 1;\nexport const b = 2;\n',
      after: 'export const a = 1;\nexport const b = 3;\n',
      patch: file('src/keep.ts').patch,
      truncated: false,
      limitBytes: 1024 * 1024,
    });
    const gone = await fileOf(setup, runId, pathQuery('src/gone.ts'));
    expect(gone.body).toMatchObject({
      status: 'deleted',
      before: 'export const gone = true;\n',
      after: null,
    });
    const renamed = await fileOf(setup, runId, pathQuery('src/renamed.ts'));
    expect(renamed.body).toMatchObject({ status: 'renamed', oldPath: 'src/old-name.ts' });
    expect(renamed.body.before).toBe(renamed.body.after);
    const logo = await fileOf(setup, runId, pathQuery('logo.png'));
    expect(logo.body).toMatchObject({ binary: true, before: null, after: '', patch: '' });
    const added = diff.files.find((f) => f.status === 'added' && f.language === 'typescript');
    const created = await fileOf(setup, runId, pathQuery(added?.path ?? ''));
    expect(created.body.before).toBeNull();
    expect(created.body.after).toBe(await gitIn(repoPath, ['show', `${headCommit}:${added?.path}`]));
  });

  it('cuts a 5 MB file at the cap it names', async () => {
    const huge = await fileOf(setup, runId, pathQuery('data/huge.txt'));
    expect(huge.status).toBe(200);
    expect(huge.body).toMatchObject({ truncated: true, before: null, limitBytes: 1024 * 1024 });
    expect(huge.body.after).toHaveLength(1024 * 1024);
    expect(Buffer.byteLength(huge.body.patch)).toBeLessThanOrEqual(1024 * 1024);
    expect(huge.body.patch.endsWith('\n')).toBe(true);
  });

  it('answers 404 DIFF_FILE_NOT_FOUND for any path the run does not change, however it is written', async () => {
    const tricks = [
      'README.md',
      '../../../../etc/passwd',
      '/etc/passwd',
      'src/../src/keep.ts',
      './src/keep.ts',
      'src/old-name.ts',
      '.git/config',
      'src/*.ts',
      ':(glob)**',
      '--output=/tmp/x',
      `${headCommit}:src/keep.ts`,
      'src/keep.ts\0',
    ];
    for (const trick of tricks) {
      const res = await fileOf(setup, runId, pathQuery(trick));
      expect(res.status, trick).toBe(404);
      expect(res.body.error, trick).toBe('DIFF_FILE_NOT_FOUND');
    }
    expect((await fileOf(setup, runId, '')).body.error).toBe('VALIDATION_ERROR');
    expect((await fileOf(setup, runId, `${pathQuery('src/keep.ts')}&x=1`)).status).toBe(400);
  });

  it('answers 404 RUN_NOT_FOUND to another user and for a run that does not exist, 401 without a session', async () => {
    const other = await signedInClient(env.t.app);
    const asOther = { ...setup, client: other.client };
    expect((await diffOf(asOther, runId)).body.error).toBe('RUN_NOT_FOUND');
    expect((await diffOf(asOther, runId)).status).toBe(404);
    const otherFile = await fileOf(asOther, runId, pathQuery('src/keep.ts'));
    expect(otherFile.status).toBe(404);
    expect(otherFile.body.error).toBe('RUN_NOT_FOUND');
    const anonymous = new TestClient(env.t.app);
    expect((await anonymous.get(`/api/pipeline/runs/${runId}/diff`)).status).toBe(401);
    expect((await anonymous.get(`/api/pipeline/runs/${runId}/diff/file?path=x`)).status).toBe(401);
    const missing = await diffOf(setup, '00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);
    expect((await diffOf(setup, 'not-a-uuid')).status).toBe(400);
  });

  it('answers 409 RUN_BRANCH_GONE once the run’s branch is deleted', async () => {
    const row = await runRow(env.t, runId);
    await gitIn(repoPath, ['worktree', 'remove', '--force', row.worktreePath ?? '']);
    await gitIn(repoPath, ['branch', '-D', row.branch ?? '']);
    const res = await diffOf(setup, runId);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: 'RUN_BRANCH_GONE', branch: row.branch });
    expect((await fileOf(setup, runId, pathQuery('src/keep.ts'))).body.error).toBe('RUN_BRANCH_GONE');
  });
});
