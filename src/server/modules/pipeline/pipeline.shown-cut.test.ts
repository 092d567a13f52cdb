import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, head, status } from '../workspace/test-repo.js';
import {
  commitSubjects,
  createProxiedTestApp,
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

describe('a one-shot coder that rewrites a file it was shown cut', () => {
  it(
    'is refused (INVALID_AGENT_OUTPUT → paused parse_error naming the file); the file and the branch are untouched',
    async () => {
      // The simulated planner and coder name a task's main file after its title: "Big" → src/big.ts,
      // which the coder answers with complete contents, as the one-shot format asks.
      const { client, taskId, projectId } = await newTask(env.t, { title: 'Big', coderEngine: 'one-shot' });
      const { repoPath, defaultBranch } = await repoOf(env.t, projectId);
      await commitFiles(repoPath, { 'src/big.ts': BIG }, 'A file larger than the window');
      const base = await head(repoPath, defaultBranch);

      const runId = await startOk(client, taskId);
      await env.t.deps.orchestrator.idle();

      // The coder was told which part it saw and that it must leave the file alone.
      const [asked] = env.requestsOf(runId, 'coder');
      const lines = BIG.slice(0, 60_000).split('\n').length;
      expect(asked?.prompt).toContain(
        `### src/big.ts (truncated: shown its first 60,000 characters, ${lines.toLocaleString('en-US')} lines, ` +
          `of a ${Buffer.byteLength(BIG).toLocaleString('en-US')}-byte file — do not replace or delete this file`,
      );

      const paused = await statusOf(client, taskId);
      expect(paused.status).toBe('paused');
      expect(paused.errorDetails).toMatchObject({
        type: 'parse_error',
        failedAgent: 'coder',
        failedPhase: 'coding',
        retryable: true,
      });
      expect(paused.errorDetails?.message).toMatch(
        /^The coder rewrote src\/big\.ts, which it was shown only in part \(its first 60,000 characters.*\); nothing was applied\./,
      );

      // Nothing of the answer reached the worktree or the branch.
      const worktree = (await runRow(env.t, runId)).worktreePath!;
      expect((await readFile(path.join(worktree, 'src/big.ts'))).equals(Buffer.from(BIG))).toBe(true);
      expect(await status(worktree)).toBe('');
      expect(paused.branch).toBeTruthy();
      expect(await head(repoPath, paused.branch!)).toBe(base);
      expect(await commitSubjects(repoPath, `${base}..${paused.branch}`)).toEqual([]);
      expect(await head(repoPath, `${paused.branch}:src/big.ts`)).toBe(
        await head(repoPath, `${base}:src/big.ts`),
      );
      expect(paused.headCommit).toBeNull();
      expect(paused.fileChanges.files).toEqual([]);
    },
    LONG_TEST_MS,
  );
});
