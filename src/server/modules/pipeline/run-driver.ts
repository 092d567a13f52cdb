import { MAX_ITERATIONS } from '@/contracts/pipeline.js';
import { applyFileChanges } from '../workspace/apply-changes.js';
import { commitAll } from '../workspace/commit.js';
import { readFilesForContext, repoMap } from '../workspace/context.js';
import { diffRange } from '../workspace/diff.js';
import { executeCoderAgent } from './agents/coder-agent.js';
import { executePlannerAgent } from './agents/planner-agent.js';
import { executeReviewerAgent, reviewPassed } from './agents/reviewer-agent.js';
import { agentParams, type CallRecords, callPatch, recordCall, usagePatch } from './run-calls.js';
import { type DriverEnv, mergeFileChanges, type RunContext } from './run-context.js';
import { type RunPatch, type RunRow, setTaskFields } from './runs.repo.js';

/** Raised when a write finds the run no longer running: it was cancelled meanwhile. */
class RunStopped extends Error {}

/** Before every write: a cancelled run stops quietly, a run past its time limit stops with that error. */
function checkGoingOn(ctx: RunContext) {
  if (ctx.handle.cancelled) throw new RunStopped();
  ctx.handle.controller.signal.throwIfAborted();
}

/** The fields waiting to be written with the run's next update, taken. */
function takePending(ctx: RunContext): RunPatch {
  const pending = ctx.pendingPatch ?? {};
  ctx.pendingPatch = undefined;
  return pending;
}

/** Saves a step's results and cursor (transition `progress`). */
async function persist(env: DriverEnv, ctx: RunContext, patch: RunPatch): Promise<RunRow> {
  checkGoingOn(ctx);
  const row = await env.transitions.progress(ctx, { ...takePending(ctx), ...patch });
  if (!row) throw new RunStopped();
  return row;
}

/**
 * Enters the phase the cursor points at (and announces the subtask); writes the phase and cursor
 * unless `write` is false — within coding, each subtask's own write already saved the cursor.
 */
async function enterPhase(
  env: DriverEnv,
  ctx: RunContext,
  subtask?: { index: number; total: number; title: string },
  write = true,
) {
  checkGoingOn(ctx);
  const at = { cursor: ctx.cursor, iteration: ctx.iteration };
  const row = await env.transitions.enterPhase(ctx, at, write ? takePending(ctx) : null, subtask);
  if (write && !row) throw new RunStopped();
}

async function plan(env: DriverEnv, ctx: RunContext, row: CallRecords) {
  await enterPhase(env, ctx);
  const map = await repoMap(ctx.worktreePath, env.budgets.repoMap);
  const result = await executePlannerAgent({
    ...agentParams(env, ctx, 'planner'),
    task: ctx.task,
    repoMap: map,
  });
  const recorded = await recordCall(env, ctx, 'planner', result);
  ctx.subtasks = result.output.subtasks;
  ctx.cursor = { ...ctx.cursor, phase: 'coding', subtaskIndex: 0 };
  const updated = await persist(env, ctx, {
    subtasks: ctx.subtasks,
    cursor: ctx.cursor,
    ...usagePatch(ctx),
    ...callPatch(row, 'planner', recorded),
  });
  await setTaskFields(env.db, ctx.taskId, { subtasks: ctx.subtasks });
  return updated;
}

/** Applies the coder's files in the worktree and commits them: one commit per call. */
async function applyAndCommit(
  ctx: RunContext,
  files: Parameters<typeof applyFileChanges>[1],
  message: string,
) {
  await applyFileChanges(ctx.worktreePath, files);
  const sha = await commitAll(ctx.worktreePath, message);
  if (sha) ctx.headCommit = sha;
  ctx.fileChanges = mergeFileChanges(ctx.fileChanges, files);
}

async function code(env: DriverEnv, ctx: RunContext, row: CallRecords) {
  await env.transitions.events.moveTask(ctx.projectId, ctx.taskId, ctx.runId, 'building');
  let current = row;
  const total = ctx.subtasks.length;
  const first = ctx.cursor.subtaskIndex;
  for (let index = first; index < total; index++) {
    const subtask = ctx.subtasks[index];
    if (!subtask) break;
    await enterPhase(env, ctx, { index: index + 1, total, title: subtask.title }, index === first);
    const wanted = [...(subtask.files ?? []), ...ctx.fileChanges.map((f) => f.filePath)];
    const currentFiles = await readFilesForContext(ctx.worktreePath, [...new Set(wanted)], env.budgets.files);
    const result = await executeCoderAgent({
      ...agentParams(env, ctx, 'coder'),
      task: ctx.task,
      subtask,
      subtaskIndex: index + 1,
      subtaskCount: total,
      previousOutputs: ctx.fileChanges,
      currentFiles,
    });
    const recorded = await recordCall(env, ctx, 'coder', result);
    await applyAndCommit(
      ctx,
      result.output.files,
      `${subtask.title}\n\nSubtask ${index + 1}/${total} of "${ctx.task.title}".`,
    );
    ctx.cursor = { ...ctx.cursor, subtaskIndex: index + 1 };
    current = await persist(env, ctx, {
      cursor: ctx.cursor,
      fileChanges: { files: ctx.fileChanges },
      headCommit: ctx.headCommit,
      ...usagePatch(ctx),
      ...callPatch(current, 'coder', recorded),
    });
  }
  if (ctx.cursor.feedback) {
    // A request for changes codes no subtask: announce the phase here, or clients still show "completed".
    await enterPhase(env, ctx);
    current = await fixWith(env, ctx, current, {
      feedback: ctx.cursor.feedback,
      message: 'Address review feedback',
    });
  }
  // The review's own phase write saves this cursor.
  ctx.cursor = { ...ctx.cursor, phase: 'reviewing', feedback: undefined };
  return current;
}

async function fixWith(
  env: DriverEnv,
  ctx: RunContext,
  row: CallRecords,
  opts: { feedback?: string | undefined; message: string },
) {
  const paths = ctx.fileChanges.filter((f) => f.action !== 'delete').map((f) => f.filePath);
  const currentFiles = await readFilesForContext(ctx.worktreePath, paths, env.budgets.files);
  const result = await executeCoderAgent({
    ...agentParams(env, ctx, 'coder'),
    task: ctx.task,
    subtask: null,
    iteration: ctx.iteration,
    previousOutputs: ctx.fileChanges,
    reviewFindings: opts.feedback ? undefined : (ctx.review ?? undefined),
    feedback: opts.feedback,
    currentFiles,
  });
  const recorded = await recordCall(env, ctx, 'coder', result);
  await applyAndCommit(
    ctx,
    result.output.files,
    `${opts.message}\n\nIteration ${ctx.iteration} of "${ctx.task.title}".`,
  );
  return persist(env, ctx, {
    fileChanges: { files: ctx.fileChanges },
    headCommit: ctx.headCommit,
    ...usagePatch(ctx),
    ...callPatch(row, 'coder', recorded),
  });
}

async function fix(env: DriverEnv, ctx: RunContext, row: CallRecords) {
  await enterPhase(env, ctx);
  const attempt = ctx.iteration - ctx.cursor.roundStart;
  env.transitions.events.chunk(
    ctx.taskId,
    ctx.runId,
    'coder',
    `Review failed — auto-fixing (attempt ${attempt}/${MAX_ITERATIONS - 1})\n`,
  );
  const updated = await fixWith(env, ctx, row, { message: 'Fix review findings' });
  // The review's own phase write saves this cursor.
  ctx.cursor = { ...ctx.cursor, phase: 'reviewing' };
  return updated;
}

/** Reviews the branch's diff; `done` when the run has ended (passed or failed). */
async function review(env: DriverEnv, ctx: RunContext, row: CallRecords) {
  await enterPhase(env, ctx);
  const base = ctx.baseCommit ?? 'HEAD';
  const diff = await diffRange(ctx.worktreePath, base, 'HEAD');
  const result = await executeReviewerAgent({
    ...agentParams(env, ctx, 'reviewer'),
    task: ctx.task,
    subtasks: ctx.subtasks,
    iteration: ctx.iteration,
    changedFiles: diff.files.map((f) => f.path),
    diff: diff.patch.slice(0, env.budgets.diff),
    feedback: ctx.lastFeedback,
  });
  const recorded = await recordCall(env, ctx, 'reviewer', result);
  ctx.review = result.output;
  const common = { reviewFindings: ctx.review, ...usagePatch(ctx), ...callPatch(row, 'reviewer', recorded) };
  if (reviewPassed(ctx.review)) {
    checkGoingOn(ctx);
    const passed = await env.transitions.pass(ctx, ctx, common);
    if (!passed) throw new RunStopped();
    return { done: true, row: passed };
  }
  if (ctx.iteration - ctx.cursor.roundStart < MAX_ITERATIONS - 1) {
    ctx.iteration += 1;
    ctx.cursor = { ...ctx.cursor, phase: 'fixing' };
    return {
      done: false,
      row: await persist(env, ctx, { ...common, iteration: ctx.iteration, cursor: ctx.cursor }),
    };
  }
  checkGoingOn(ctx);
  const failed = await env.transitions.fail(ctx, ctx, common);
  if (!failed) throw new RunStopped();
  return { done: true, row: failed };
}

/**
 * Runs the state machine from wherever the cursor points until the run passes, fails,
 * pauses (an error propagates to the caller) or is cancelled (returns quietly).
 */
export async function driveRun(env: DriverEnv, ctx: RunContext, row: CallRecords) {
  let current = row;
  try {
    for (;;) {
      if (ctx.handle.cancelled) return;
      switch (ctx.cursor.phase) {
        case 'planning':
          current = await plan(env, ctx, current);
          break;
        case 'coding':
          current = await code(env, ctx, current);
          break;
        case 'fixing':
          current = await fix(env, ctx, current);
          break;
        case 'reviewing': {
          const reviewed = await review(env, ctx, current);
          if (reviewed.done) return;
          current = reviewed.row;
          break;
        }
      }
    }
  } catch (error) {
    if (error instanceof RunStopped || ctx.handle.cancelled) return;
    throw error;
  }
}
