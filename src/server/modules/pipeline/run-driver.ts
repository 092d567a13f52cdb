import { MAX_ITERATIONS } from '@/contracts/pipeline.js';
import { isExternalEngine } from '../engines/engine-catalog.js';
import { repoMap } from '../workspace/context.js';
import { diffRange } from '../workspace/diff.js';
import { executePlannerAgent } from './agents/planner-agent.js';
import { executeReviewerAgent, reviewPassed } from './agents/reviewer-agent.js';
import { coderEngineOf } from './one-shot-engine.js';
import { buildCoderLoopPrompt } from './prompts/coder-loop-prompt.js';
import {
  addUnrecordedUsage,
  agentParams,
  type CallRecords,
  callPatch,
  recordCall,
  usagePatch,
} from './run-calls.js';
import { failedCheckOf, verifyStep, withCheckVerdict } from './run-check.js';
import { fixWith, updateBranch } from './run-coder-steps.js';
import type { DriverEnv, RunContext } from './run-context.js';
import { runCoderStep } from './run-engine-step.js';
import { prepareSetup } from './run-setup.js';
import { checkGoingOn, enterPhase, persist, RunStopped } from './run-steps.js';
import { setTaskFields } from './runs.repo.js';

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

async function code(env: DriverEnv, ctx: RunContext, row: CallRecords) {
  await env.transitions.events.moveTask(ctx.projectId, ctx.taskId, ctx.runId, 'building');
  let current = row;
  const total = ctx.subtasks.length;
  const first = ctx.cursor.subtaskIndex;
  for (let index = first; index < total; index++) {
    const subtask = ctx.subtasks[index];
    if (!subtask) break;
    await enterPhase(env, ctx, { index: index + 1, total, title: subtask.title }, index === first);
    const message = `${subtask.title}\n\nSubtask ${index + 1}/${total} of "${ctx.task.title}".`;
    const brief = {
      task: ctx.task,
      subtask,
      subtaskIndex: index + 1,
      subtaskCount: total,
      previousOutputs: ctx.fileChanges,
    };
    const engine = coderEngineOf(env, ctx, {
      ...brief,
      wanted: [...(subtask.files ?? []), ...ctx.fileChanges.map((f) => f.filePath)],
    });
    const prompt = buildCoderLoopPrompt(brief, {
      external: isExternalEngine(ctx.coderEngine),
    });
    const recorded = await runCoderStep(env, ctx, engine, prompt, message);
    ctx.cursor = { ...ctx.cursor, subtaskIndex: index + 1 };
    current = await persist(env, ctx, {
      cursor: ctx.cursor,
      fileChanges: { files: ctx.fileChanges },
      headCommit: ctx.headCommit,
      ...usagePatch(ctx),
      ...callPatch(current, 'coder', recorded),
    });
  }
  const { feedback, comments } = ctx.cursor;
  if (ctx.cursor.resolveConflicts) {
    await enterPhase(env, ctx);
    current = await updateBranch(env, ctx, current);
  } else if (feedback || comments?.length) {
    // A request for changes codes no subtask: announce the phase here, or clients still show "completed".
    await enterPhase(env, ctx);
    current = await fixWith(env, ctx, current, { feedback, comments, message: 'Address review feedback' });
  }
  // The review's own phase write saves this cursor.
  const check = await verified(env, ctx);
  ctx.cursor = { ...ctx.cursor, phase: 'reviewing', feedback: undefined, comments: undefined, check };
  return current;
}

/** The gate after a coding or fixing step: the project's check, if it has one (see run-check.ts). */
async function verified(env: DriverEnv, ctx: RunContext) {
  // The coder's own last check ran on this very tree and passed: the gate takes its result.
  const check = ctx.checkedTree ?? (await verifyStep(env, ctx));
  ctx.checkedTree = undefined;
  checkGoingOn(ctx);
  return check;
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
  const check = await verified(env, ctx);
  ctx.cursor = { ...ctx.cursor, phase: 'reviewing', check };
  return updated;
}

/** What the reviewer is told of the last check. */
function reviewerCheck(ctx: RunContext) {
  if (!ctx.cursor.check) return null;
  const failed = failedCheckOf(ctx);
  return failed ? { passed: false as const, failed } : { passed: true as const };
}

/** Reviews the branch's diff; `done` when the run has ended (passed or failed). */
async function review(env: DriverEnv, ctx: RunContext, row: CallRecords) {
  await enterPhase(env, ctx);
  // By commit, from the project's repository (the worktree's commits are in its object store): its
  // cat-file reader serves every run of the project, where one for the worktree would be a process
  // started from the server's own thread for one question (10-20 ms of blocked event loop).
  const diff = ctx.baseCommit
    ? await diffRange(ctx.repoPath, ctx.baseCommit, ctx.headCommit ?? ctx.baseCommit)
    : await diffRange(ctx.worktreePath, 'HEAD', 'HEAD');
  const result = await executeReviewerAgent({
    ...agentParams(env, ctx, 'reviewer'),
    task: ctx.task,
    subtasks: ctx.subtasks,
    iteration: ctx.iteration,
    changedFiles: diff.files.map((f) => f.path),
    diff: diff.patch.slice(0, env.budgets.diff),
    feedback: ctx.lastFeedback,
    check: reviewerCheck(ctx),
  });
  const recorded = await recordCall(env, ctx, 'reviewer', result);
  // Whatever the reviewer says, a failing check fails the review.
  ctx.review = withCheckVerdict(result.output, ctx.cursor.check, ctx.check?.command);
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
    // The worktree can run the project (its dependencies installed) before any agent works in it.
    await prepareSetup(env, ctx);
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
    if (error instanceof RunStopped || ctx.handle.cancelled) {
      // Stopped from outside: what the aborted call had spent stays with the run (executeRun writes it).
      addUnrecordedUsage(ctx, error);
      return;
    }
    throw error;
  }
}
