// The time to approve (merge) a run whose branch touches 200 files with 20,000 changed lines, part of
// the diff part of `npm run bench`: POST …/approve → 200 over fresh runs, when the default branch
// has not moved (a fast-forward) and when it has (a merge commit).
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { type BigChange, createBigRun, git } from './big-run.js';
import type { BenchClient } from './lib/http.js';
import { median, round } from './lib/stats.js';

export const APPROVE_CASES = ['fast-forward', 'merge-commit'] as const;
export type ApproveCase = (typeof APPROVE_CASES)[number];

/** One case's approvals: each in ms, and their median and slowest. */
export interface ApproveFigures {
  case: ApproveCase;
  runs: number[];
  p50: number;
  max: number;
}

interface ApproveAnswer {
  status: string;
  mergeCommit: string | null;
  fastForward: boolean;
}

/**
 * Approves `runs` fresh runs per case, one at a time, each timed from sending POST
 * /api/pipeline/:taskId/approve to its 200 (git merges, the checkout moves, git confirms, the
 * run is marked and the worktree removed). In the merge-commit case the default branch gets a
 * commit of its own after the run passed, so the approval has to write a merge commit.
 */
export async function benchApprovals(
  owner: BenchClient,
  where: { dataDir: string; projectId: string },
  change: BigChange,
  runs: number,
): Promise<ApproveFigures[]> {
  const results: ApproveFigures[] = [];
  for (const kind of APPROVE_CASES) {
    const times: number[] = [];
    for (let index = 0; index < runs; index++) {
      const dir = `approve-${kind}-${index + 1}`;
      const big = await createBigRun(owner, where, change, { title: `Approve ${kind} ${index + 1}`, dir });
      if (kind === 'merge-commit') {
        // The default branch moves on meanwhile, touching none of the run's files.
        await writeFile(path.join(big.repoPath, `${dir}.txt`), `${dir}: a change on the default branch\n`);
        await git(big.repoPath, ['add', '-A']);
        await git(big.repoPath, ['commit', '--quiet', '--no-verify', '-m', `Meanwhile on main (${dir})`]);
      }
      const started = performance.now();
      const answer = await owner.json<ApproveAnswer>('POST', `/api/pipeline/${big.taskId}/approve`, {}, 200);
      times.push(performance.now() - started);
      if (answer.fastForward !== (kind === 'fast-forward'))
        throw new Error(`a ${kind} approval answered fastForward: ${answer.fastForward}`);
    }
    const figures = {
      case: kind,
      runs: times.map((ms) => round(ms, 1)),
      p50: round(median(times), 1),
      max: round(Math.max(...times), 1),
    };
    console.log(
      `  approve (${kind}) × ${times.length}: p50 ${figures.p50} ms, max ${figures.max} ms (${figures.runs.join(', ')})`,
    );
    results.push(figures);
  }
  return results;
}
