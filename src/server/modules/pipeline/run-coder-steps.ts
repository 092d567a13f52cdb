import type { RunCursor } from '@/contracts/run-lifecycle.js';
import { AppError } from '@/server/lib/errors.js';
import { applyFileChanges } from '../workspace/apply-changes.js';
import { commitAll } from '../workspace/commit.js';
import { type ContextFile, readFilesForContext, shownCut } from '../workspace/context.js';
import { filesWithConflictMarkers, mergeDefaultIntoWorktree } from '../workspace/update-branch.js';
import { executeCoderAgent } from './agents/coder-agent.js';
import { buildCoderLoopPrompt } from './prompts/coder-loop-prompt.js';
import { agentParams, type CallRecords, callPatch, recordCall, usagePatch } from './run-calls.js';
import { failedCheckOf } from './run-check.js';
import { codeWithLoop } from './run-coder-loop.js';
import { type DriverEnv, mergeFileChanges, type RunContext } from './run-context.js';
import { checkGoingOn, persist } from './run-steps.js';

/* The coder's steps that change the branch: applying and committing an answer, a fixing call, bringing the branch up to date. */

/**
 * Takes WRITING locks on the coder's files (waiting for other agents, see RunLocks.hold), then
 * applies them in the worktree and commits them: one commit per call. `shown` is what the call's
 * prompt showed of the files: an answer that replaces or deletes a file shown cut is refused
 * whole (INVALID_AGENT_OUTPUT, the run pauses as for any unusable answer) and nothing is applied.
 */
export async function applyAndCommit(
  env: DriverEnv,
  ctx: RunContext,
  files: Parameters<typeof applyFileChanges>[1],
  shown: readonly ContextFile[],
  message: string,
  beforeCommit?: () => Promise<void>,
) {
  const agent = { runId: ctx.runId, taskId: ctx.taskId, projectId: ctx.projectId, taskTitle: ctx.task.title };
  const paths = files.map((f) => f.filePath);
  await env.locks?.hold(agent, paths, message.split('\n')[0] ?? message, ctx.handle.controller.signal);
  checkGoingOn(ctx);
  const { recorded } = await applyFileChanges(ctx.worktreePath, files, { shownCut: shownCut(shown) });
  await beforeCommit?.();
  const sha = await commitAll(ctx.worktreePath, message);
  if (sha) ctx.headCommit = sha;
  ctx.fileChanges = mergeFileChanges(ctx.fileChanges, recorded);
}

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
    const sha = await commitAll(ctx.worktreePath, message);
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
  const recorded =
    ctx.coderEngine === 'autocoder'
      ? await codeWithLoop(
          env,
          ctx,
          buildCoderLoopPrompt({ ...brief, conflicts: unresolved }),
          message,
          beforeCommit,
        )
      : await fixOneShot(env, ctx, brief, unresolved, message, beforeCommit);
  return persist(env, ctx, {
    fileChanges: { files: ctx.fileChanges },
    headCommit: ctx.headCommit,
    ...usagePatch(ctx),
    ...callPatch(row, 'coder', recorded),
  });
}

/** A fixing step of the one-shot engine: the files it may change shown whole (or cut), one answer applied. */
async function fixOneShot(
  env: DriverEnv,
  ctx: RunContext,
  brief: Omit<Parameters<typeof executeCoderAgent>[0], keyof ReturnType<typeof agentParams> | 'currentFiles'>,
  unresolved: string[],
  message: string,
  beforeCommit: () => Promise<void>,
) {
  const conflicts = unresolved.length
    ? await readFilesForContext(ctx.worktreePath, unresolved, env.budgets.files)
    : undefined;
  const paths = ctx.fileChanges
    .filter((f) => f.action !== 'delete' && !unresolved.includes(f.filePath))
    .map((f) => f.filePath);
  const currentFiles = await readFilesForContext(ctx.worktreePath, paths, env.budgets.files);
  const result = await executeCoderAgent({
    ...agentParams(env, ctx, 'coder'),
    ...brief,
    conflicts,
    currentFiles,
  });
  const recorded = await recordCall(env, ctx, 'coder', result);
  await applyAndCommit(
    env,
    ctx,
    result.output.files,
    [...(conflicts ?? []), ...currentFiles],
    message,
    beforeCommit,
  );
  return recorded;
}
