import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git } from '@/server/lib/git.js';
import { commitFiles, head, status } from '../workspace/test-repo.js';
import { streamText } from './testing/llm-proxy.js';
import {
  commitSubjects,
  createProxiedTestApp,
  gitIn,
  LONG_TEST_MS,
  newTask,
  type ProxiedTestApp,
  repoOf,
  runRow,
  startOk,
  statusOf,
} from './testing/run-kit.js';

let env: ProxiedTestApp;
beforeAll(async () => {
  env = await createProxiedTestApp();
});
afterAll(async () => env.close());

/** About 250 KB of TypeScript: far more than the coder's 60,000-character window of files. */
const BIG = `${Array.from({ length: 8500 }, (_, i) => `export const value${i} = ${i};`).join('\n')}\n`;
/** A line in the part of the file the coder is shown. */
const LINE = 'export const value1234 = 1234;\n';
const CHANGED = 'export const value1234 = 4321;\n';

const PLAN = {
  subtasks: [
    {
      id: 'change-one-value',
      title: 'Change one value',
      description: 'Set value1234 to 4321 in src/big.ts.',
      order: 1,
      files: ['src/big.ts'],
    },
  ],
};
const REVIEW = { passed: true, score: 90, findings: [] };

const fenced = (value: unknown) => `Here it is.\n\n\`\`\`json\n${JSON.stringify(value)}\n\`\`\`\n`;

/**
 * Runs the task with the planner, coder and reviewer answered at the wire: the plan above, the
 * coder's `answer`, and a passing review. Returns the run's status and the coder's requests.
 */
async function runWithCoderAnswer(answer: unknown) {
  const { client, taskId, projectId } = await newTask(env.t, { title: 'Big' });
  // The engine that asks for one answer of files (the default is the tool-using loop).
  expect((await client.patch(`/api/tasks/${taskId}`, { coderEngine: 'one-shot' })).status).toBe(200);
  const { repoPath, defaultBranch } = await repoOf(env.t, projectId);
  await commitFiles(repoPath, { 'src/big.ts': BIG }, 'A file larger than the window');
  const base = await head(repoPath, defaultBranch);
  const answers: Record<string, unknown> = { planner: PLAN, coder: answer, reviewer: REVIEW };
  env.proxy.respondWith((seen, res) => {
    const scripted = seen.agent && answers[seen.agent];
    if (!scripted) return false;
    streamText(res, fenced(scripted));
    return true;
  });
  let runId: string;
  try {
    runId = await startOk(client, taskId);
    await env.t.deps.orchestrator.idle();
  } finally {
    env.proxy.respondWith(undefined);
  }
  const run = await statusOf(client, taskId);
  return { run, runId, repoPath, base, coderAsked: env.requestsOf(runId, 'coder') };
}

/** A request's prompt as text: the proxy gives content blocks as their JSON. */
function textOf(prompt: string): string {
  if (!prompt.startsWith('[')) return prompt;
  const blocks = JSON.parse(prompt) as { text?: string }[];
  return blocks.map((block) => block.text ?? '').join('');
}

/** A blob's bytes as git stores them. */
async function blob(repoPath: string, rev: string): Promise<Buffer> {
  return (await git(['cat-file', 'blob', rev], { cwd: repoPath })).stdout;
}

describe('a one-shot coder given a file larger than its window', () => {
  it(
    'changes one line of it with a search/replace edit; every other byte is unchanged on the branch',
    async () => {
      const { run, runId, repoPath, base, coderAsked } = await runWithCoderAnswer({
        files: [
          {
            filePath: 'src/big.ts',
            language: 'typescript',
            action: 'edit',
            edits: [{ search: LINE, replace: CHANGED }],
          },
        ],
      });

      // It was shown the file cut, told so, and told to change it only with edits.
      expect(coderAsked).toHaveLength(1);
      const [asked] = coderAsked;
      expect(asked?.system).toContain('"action":"edit","edits":[{"search":"…","replace":"…"}]');
      const prompt = textOf(asked?.prompt ?? '');
      const lines = BIG.slice(0, 60_000).split('\n').length.toLocaleString('en-US');
      expect(prompt.split('\n').find((line) => line.startsWith('### src/big.ts'))).toBe(
        `### src/big.ts (truncated: shown its first 60,000 characters, ${lines} lines, of a 261,280-byte file — ` +
          'do not replace or delete this file; change it only with "edit" search/replace blocks copied from the lines shown)',
      );
      expect(Buffer.byteLength(BIG)).toBe(261_280);
      expect(prompt.includes(LINE)).toBe(true);

      expect(run.status).toBe('passed');
      expect(run.errorDetails).toBeNull();
      expect(run.branch).toBeTruthy();
      const branch = run.branch!;
      expect(await commitSubjects(repoPath, `${base}..${branch}`)).toEqual(['Change one value']);
      const expected = Buffer.from(BIG.replace(LINE, CHANGED));
      expect(expected.length).toBe(Buffer.byteLength(BIG));
      expect((await blob(repoPath, `${branch}:src/big.ts`)).equals(expected)).toBe(true);
      expect(await gitIn(repoPath, ['diff', '--numstat', base, branch])).toBe('1\t1\tsrc/big.ts\n');
      const worktree = (await runRow(env.t, runId)).worktreePath!;
      expect(await status(worktree)).toBe('');
      expect(run.fileChanges.files.map((f) => [f.filePath, f.action])).toEqual([['src/big.ts', 'modify']]);
      // The run records the file as the edit left it, not the blocks.
      expect(run.fileChanges.files[0]?.content).toBe(BIG.replace(LINE, CHANGED));
    },
    LONG_TEST_MS,
  );

  it(
    'still refuses a complete rewrite of it: nothing applied, the branch untouched',
    async () => {
      const { run, runId, repoPath, base } = await runWithCoderAnswer({
        files: [
          {
            filePath: 'src/big.ts',
            language: 'typescript',
            action: 'modify',
            content: BIG.slice(0, 60_000).replace(LINE, CHANGED),
          },
        ],
      });
      expect(run.status).toBe('paused');
      expect(run.errorDetails).toMatchObject({
        type: 'parse_error',
        failedAgent: 'coder',
        failedPhase: 'coding',
      });
      expect(run.errorDetails?.message).toMatch(
        /^The coder rewrote src\/big\.ts, which it was shown only in part \(its first 60,000 characters.*\); nothing was applied\. A file shown in part can only be changed with "edit" search\/replace blocks\./,
      );
      const worktree = (await runRow(env.t, runId)).worktreePath!;
      expect((await readFile(path.join(worktree, 'src/big.ts'))).equals(Buffer.from(BIG))).toBe(true);
      expect(await status(worktree)).toBe('');
      expect(await head(repoPath, run.branch!)).toBe(base);
      expect(run.headCommit).toBeNull();
      expect(run.fileChanges.files).toEqual([]);
    },
    LONG_TEST_MS,
  );

  it(
    'refuses an edit whose search is found several times, naming the file and the block; nothing applied',
    async () => {
      const { run, runId, repoPath, base } = await runWithCoderAnswer({
        files: [
          {
            filePath: 'src/new.ts',
            language: 'typescript',
            content: 'export const fresh = 1;\n',
            action: 'create',
          },
          {
            filePath: 'src/big.ts',
            language: 'typescript',
            action: 'edit',
            edits: [
              { search: LINE, replace: CHANGED },
              // value8, value80…value89, value800…value899, value8000…value8499.
              { search: 'export const value8', replace: 'export const renamed8' },
            ],
          },
        ],
      });
      expect(run.status).toBe('paused');
      expect(run.errorDetails).toMatchObject({
        type: 'parse_error',
        failedAgent: 'coder',
        failedPhase: 'coding',
      });
      expect(run.errorDetails?.message).toBe(
        "The coder's edits could not be applied; nothing was applied. src/big.ts block 2: its search text " +
          'was found 611 times (it must occur once: include more lines).',
      );
      const worktree = (await runRow(env.t, runId)).worktreePath!;
      expect((await readFile(path.join(worktree, 'src/big.ts'))).equals(Buffer.from(BIG))).toBe(true);
      expect(await status(worktree)).toBe('');
      expect(await head(repoPath, run.branch!)).toBe(base);
      expect(run.fileChanges.files).toEqual([]);
    },
    LONG_TEST_MS,
  );
});
