import { AppError } from '@/server/lib/errors.js';
import { getOwnedTask } from '../tasks/tasks.js';
import { mergeBranch, revertMerge } from '../workspace/merge.js';
import type { OrchestratorDeps } from './pipeline-deps.js';
import { type ExecutionEnv, releaseWorktree } from './run-execution.js';
import type { RunTransitions } from './run-transitions.js';
import { latestRunOfTask, taskWithProject } from './runs.repo.js';

/** What approving and reverting need: the database, the transitions, and where worktrees live. */
export interface ApprovalEnv {
  deps: Pick<OrchestratorDeps, 'db' | 'logger' | 'headsMoved'>;
  transitions: RunTransitions;
  execution: Pick<ExecutionEnv, 'db' | 'dataDir' | 'logger'>;
}

/**
 * Approves a passed run in Review: the branch goes into the default branch (fast-forward or a
 * merge commit; a revert of an earlier approval is undone first), git confirms the default
 * branch contains the branch head, and only then is the run marked, the task done and the
 * worktree removed. The branch stays. A conflict answers 409 and changes nothing.
 */
export async function approveRun(env: ApprovalEnv, userId: string, taskId: string) {
  const task = await getOwnedTask(env.deps, userId, taskId);
  const run = await latestRunOfTask(env.deps.db, taskId);
  if (run?.status !== 'passed' || task.status !== 'review') {
    throw new AppError('INVALID_PIPELINE_STATE', 'Task must be in Review status to approve');
  }
  const found = await taskWithProject(env.deps.db, taskId);
  if (!found) throw new AppError('TASK_NOT_FOUND', 'Task not found');
  let merge = { mergeCommit: null as string | null, mergedOnto: null as string | null, fastForward: false };
  if (run.branch) {
    merge = await mergeBranch({
      repoPath: found.project.repoPath,
      branch: run.branch,
      defaultBranch: found.project.defaultBranch,
      message: `Merge ${run.branch}: ${task.title}`,
      reapply: run.revertCommit,
    });
  }
  const { mergeCommit, mergedOnto } = merge;
  const ref = { runId: run.id, taskId, projectId: task.projectId };
  const updated = await env.transitions.approve(ref, { mergeCommit, mergedOnto });
  if (mergeCommit && mergeCommit !== mergedOnto) await announceHead(env, found.project, mergeCommit);
  if (updated) await releaseWorktree(env.execution, updated, found.project);
  env.deps.logger.info('pipeline approved', { taskId, runId: run.id, mergeCommit });
  return { status: 'done' as const, mergeCommit, fastForward: merge.fastForward, branch: run.branch };
}

/**
 * Undoes the task's last approval with one revert commit on the default branch (a merge
 * commit by its first parent, a fast-forward as the whole range it brought). The task goes
 * back to Review; the branch keeps its commits, and the next approval reapplies them. A
 * conflict answers 409 naming the files, and nothing changes.
 */
export async function revertApproval(env: ApprovalEnv, userId: string, taskId: string) {
  const task = await getOwnedTask(env.deps, userId, taskId);
  const run = await latestRunOfTask(env.deps.db, taskId);
  if (run?.status !== 'passed' || task.status !== 'done' || !run.mergeCommit || !run.mergedOnto) {
    throw new AppError('INVALID_PIPELINE_STATE', 'Only an approved task in Done can be reverted');
  }
  const found = await taskWithProject(env.deps.db, taskId);
  if (!found) throw new AppError('TASK_NOT_FOUND', 'Task not found');
  const { revertCommit } = await revertMerge({
    repoPath: found.project.repoPath,
    defaultBranch: found.project.defaultBranch,
    mergeCommit: run.mergeCommit,
    mergedOnto: run.mergedOnto,
    message: `Revert "${task.title}"\n\nTakes back ${run.mergedOnto.slice(0, 12)}..${run.mergeCommit.slice(0, 12)}${
      run.branch ? ` (${run.branch})` : ''
    }, approved by AutoCoder.`,
  });
  const updated = await env.transitions.revert(
    { runId: run.id, taskId, projectId: task.projectId },
    revertCommit,
  );
  if (!updated) throw new AppError('INVALID_PIPELINE_STATE', 'Only an approved task in Done can be reverted');
  if (revertCommit) await announceHead(env, found.project, revertCommit);
  env.deps.logger.info('pipeline approval reverted', { taskId, runId: run.id, revertCommit });
  return { status: 'review' as const, revertCommit, branch: run.branch };
}

/** Tells the project's followers its branch moved. The merge or revert is done: failing to say so only logs. */
async function announceHead(
  env: ApprovalEnv,
  project: { id: string; repoPath: string; defaultBranch: string },
  head: string,
) {
  await env.deps
    .headsMoved?.(project, [{ branch: project.defaultBranch, head }])
    .catch((error: unknown) =>
      env.deps.logger.warn('could not announce the moved branch', { projectId: project.id, error }),
    );
}
