import type { RunCursor } from '@/contracts/run-lifecycle.js';
import { AppError } from '@/server/lib/errors.js';
import { isExternalEngine } from '../engines/engine-catalog.js';
import { commitAll } from '../workspace/commit.js';
import { filesWithConflictMarkers, mergeDefaultIntoWorktree } from '../workspace/update-branch.js';
import { coderEngineOf } from './one-shot-engine.js';
import { buildCoderLoopPrompt } from './prompts/coder-loop-prompt.js';
import { type CallRecords, callPatch, usagePatch } from './run-calls.js';
import { failedCheckOf } from './run-check.js';
import type { DriverEnv, RunContext } from './run-context.js';
import { runCoderStep } from './run-engine-step.js';
import { persist } from './run-steps.js';

/* The coder's steps that change the branch: applying and committing an answer, a fixing call, bringing the branch up to date. */

/**
 * Request changes after a conflicting approval: merges the default branch into the task branch
 * in the worktree; the coder gets the conflicting files (with their markers) together with the
 * feedback and comments, and its answer completes the merge commit. A clean merge is committed
 * as it is, and the feedback is coded after it. The run's base becomes the merged default
 * branch, so its diff and review show the task's changes only.
 */
export async function updateBranch(env: DriverEnv, ctx: RunContext, row: CallRecords) {
  const { merged, conflicts } = await mergeDefaultIntoWorktree(ctx);
  const message = `Merge ${ctx.defaultBranch} into ${ctx.branch}`;
  const { feedback, comments } = ctx.cursor;
  let current = row;
  if (conflicts.length > 0) {
    env.transitions.events.chunk(
      ctx.taskId,
      ctx.runId,
      'coder',
      `Merged ${ctx.defaultBranch} into the branch: resolving conflicts in ${conflicts.join(', ')}\n`,
    );
    current = await fixWith(env, ctx, current, {
      feedback,
      comments,
      conflicts,
      message: `${message}\n\nConflicts resolved in: ${conflicts.join(', ')}.`,
    });
  } else {
    const sha = await commitAll(ctx.worktreePath, message, ctx.setupPaths);
    if (sha) ctx.headCommit = sha;
    ctx.checkedTree = undefined;
  }
  if (merged) ctx.baseCommit = merged;
  ctx.cursor = { ...ctx.cursor, resolveConflicts: undefined };
  if (conflicts.length > 0) ctx.cursor = { ...ctx.cursor, feedback: undefined, comments: undefined };
  current = await persist(env, ctx, {
    cursor: ctx.cursor,
    headCommit: ctx.headCommit,
    baseCommit: ctx.baseCommit,
  });
  if (conflicts.length === 0 && (feedback || comments?.length)) {
    current = await fixWith(env, ctx, current, { feedback, comments, message: 'Address review feedback' });
  }
  return current;
}

export async function fixWith(
  env: DriverEnv,
  ctx: RunContext,
  row: CallRecords,
  opts: {
    feedback?: string | undefined;
    comments?: RunCursor['comments'];
    /** Files with conflict markers: the coder's answer must resolve every one. */
    conflicts?: string[];
    message: string;
  },
) {
  const unresolved = opts.conflicts ?? [];
  const beforeCommit = async () => {
    const left = await filesWithConflictMarkers(ctx.worktreePath, unresolved);
    if (left.length > 0) {
      throw new AppError('INVALID_AGENT_OUTPUT', `The coder left conflict markers in: ${left.join(', ')}`);
    }
  };
  const message = `${opts.message}\n\nIteration ${ctx.iteration} of "${ctx.task.title}".`;
  const personAsked = Boolean(opts.feedback || opts.comments?.length);
  const brief = {
    task: ctx.task,
    subtask: null,
    iteration: ctx.iteration,
    previousOutputs: ctx.fileChanges,
    reviewFindings: personAsked ? undefined : (ctx.review ?? undefined),
    failedCheck: personAsked ? undefined : failedCheckOf(ctx),
    feedback: opts.feedback,
    comments: opts.comments,
  };
  const engine = coderEngineOf(env, ctx, {
    ...brief,
    conflicts: unresolved,
    wanted: ctx.fileChanges.filter((f) => f.action !== 'delete').map((f) => f.filePath),
  });
  const prompt = buildCoderLoopPrompt(
    { ...brief, conflicts: unresolved },
    { external: isExternalEngine(ctx.coderEngine) },
  );
  const recorded = await runCoderStep(env, ctx, engine, prompt, message, beforeCommit);
  return persist(env, ctx, {
    fileChanges: { files: ctx.fileChanges },
    headCommit: ctx.headCommit,
    ...usagePatch(ctx),
    ...callPatch(row, 'coder', recorded),
  });
}
