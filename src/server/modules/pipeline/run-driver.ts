import { type AgentType, MAX_ITERATIONS } from '@/contracts/pipeline.js';
import type { Db } from '@/server/db/client.js';
import type { Logger } from '@/server/lib/logger.js';
import { estimateCostUsd } from '../llm/pricing.js';
import { applyFileChanges } from '../workspace/apply-changes.js';
import { commitAll } from '../workspace/commit.js';
import { readFilesForContext, repoMap } from '../workspace/context.js';
import { diffRange } from '../workspace/diff.js';
import type { AgentResult } from './agents/agent-base.js';
import { executeCoderAgent } from './agents/coder-agent.js';
import { executePlannerAgent } from './agents/planner-agent.js';
import { executeReviewerAgent, reviewPassed } from './agents/reviewer-agent.js';
import { mergeFileChanges, type RunContext } from './run-context.js';
import type { RunEvents } from './run-events.js';
import { type RunPatch, setTaskFields } from './runs.repo.js';

export interface DriverEnv {
  db: Db;
  events: RunEvents;
  logger: Logger;
  now: () => number;
  /** Character budgets for what agents are shown. */
  budgets: { repoMap: number; files: number; diff: number };
  /** Largest agent answer accepted, in bytes. */
  maxAnswerBytes?: number;
}

/** Raised when a write finds the run no longer running: it was cancelled meanwhile. */
class RunStopped extends Error {}

async function persist(env: DriverEnv, ctx: RunContext, patch: RunPatch) {
  if (ctx.cancelled) throw new RunStopped();
  const merged = ctx.pendingPatch ? { ...ctx.pendingPatch, ...patch } : patch;
  const row = await env.events.updateRun(ctx.projectId, ctx.runId, merged, ['running']);
  if (!row) throw new RunStopped();
  ctx.pendingPatch = undefined;
  return row;
}

/**
 * Announces the phase (and subtask) to the task's stream; writes the phase and cursor unless
 * `write` is false — within coding, each subtask's own write already saved the cursor.
 */
async function enterPhase(
  env: DriverEnv,
  ctx: RunContext,
  subtask?: { index: number; total: number; title: string },
  write = true,
) {
  const phase = ctx.cursor.phase;
  if (write) await persist(env, ctx, { phase, iteration: ctx.iteration, cursor: ctx.cursor });
  else if (ctx.cancelled) throw new RunStopped();
  await env.events.task(ctx.taskId, ctx.runId, {
    type: 'phase-change',
    data: {
      runId: ctx.runId,
      phase,
      status: 'running',
      iteration: ctx.iteration,
      ...(subtask ? { subtask } : {}),
      timestamp: env.now(),
    },
  });
}

const agentParams = (env: DriverEnv, ctx: RunContext, agent: AgentType) => ({
  provider: ctx.provider,
  config: ctx.configs[agent],
  runId: ctx.runId,
  signal: ctx.controller.signal,
  ...(env.maxAnswerBytes !== undefined ? { maxAnswerBytes: env.maxAnswerBytes } : {}),
  // Text the SDK had already buffered when the run was cancelled is not shown after the cancellation.
  onChunk: (chunk: string) => {
    if (!ctx.cancelled) env.events.chunk(ctx.taskId, ctx.runId, agent, chunk);
  },
});

/** Adds a call's tokens and cost to the run (one write per call) and announces it. */
async function recordCall(env: DriverEnv, ctx: RunContext, agent: AgentType, result: AgentResult<unknown>) {
  const costUsd = ctx.provider.simulated ? 0 : estimateCostUsd(result.model, result.tokenUsage);
  const call = { agent, model: result.model, ...result.tokenUsage, costUsd, durationMs: result.durationMs };
  ctx.usage.inputTokens += call.inputTokens;
  ctx.usage.outputTokens += call.outputTokens;
  ctx.usage.costUsd += costUsd;
  ctx.cursor.retryCount = 0;
  await env.events.task(ctx.taskId, ctx.runId, {
    type: 'usage',
    data: { runId: ctx.runId, call, total: { ...ctx.usage }, timestamp: env.now() },
  });
  return { call, text: result.text.slice(0, 50_000) };
}

/** Appends a call's record to the run's JSON arrays in the same UPDATE as the phase's own results. */
function callPatch(
  row: { calls: unknown; agentLogs: unknown },
  agent: AgentType,
  recorded: { call: unknown; text: string },
) {
  const logs = {
    planner: [],
    coder: [],
    reviewer: [],
    ...(row.agentLogs as Record<string, string[]> | null),
  };
  return {
    calls: [...((row.calls as unknown[]) ?? []), recorded.call],
    agentLogs: { ...logs, [agent]: [...(logs[agent] ?? []), recorded.text] },
  };
}

async function plan(env: DriverEnv, ctx: RunContext, row: { calls: unknown; agentLogs: unknown }) {
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

const usagePatch = (ctx: RunContext) => ({
  inputTokens: ctx.usage.inputTokens,
  outputTokens: ctx.usage.outputTokens,
  costUsd: ctx.usage.costUsd,
});

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

async function code(env: DriverEnv, ctx: RunContext, row: { calls: unknown; agentLogs: unknown }) {
  await env.events.moveTask(ctx.projectId, ctx.taskId, ctx.runId, 'building');
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
  row: { calls: unknown; agentLogs: unknown },
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

async function fix(env: DriverEnv, ctx: RunContext, row: { calls: unknown; agentLogs: unknown }) {
  await enterPhase(env, ctx);
  const attempt = ctx.iteration - ctx.cursor.roundStart;
  env.events.chunk(
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
async function review(env: DriverEnv, ctx: RunContext, row: { calls: unknown; agentLogs: unknown }) {
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
    const done = await persist(env, ctx, {
      ...common,
      phase: 'completed',
      status: 'passed',
      completedAt: new Date(env.now()),
    });
    await announceEnd(env, ctx, 'passed');
    return { done: true, row: done };
  }
  if (ctx.iteration - ctx.cursor.roundStart < MAX_ITERATIONS - 1) {
    ctx.iteration += 1;
    ctx.cursor = { ...ctx.cursor, phase: 'fixing' };
    return {
      done: false,
      row: await persist(env, ctx, { ...common, iteration: ctx.iteration, cursor: ctx.cursor }),
    };
  }
  const failed = await persist(env, ctx, {
    ...common,
    phase: 'failed',
    status: 'failed',
    completedAt: new Date(env.now()),
  });
  await announceEnd(env, ctx, 'failed');
  return { done: true, row: failed };
}

/** Tells everyone how the run ended and moves the task: to Review on a pass, to Backlog on a failure. */
export async function announceEnd(
  env: Pick<DriverEnv, 'events' | 'now'>,
  ctx: Pick<RunContext, 'taskId' | 'projectId' | 'runId' | 'iteration' | 'fileChanges' | 'review'>,
  result: 'passed' | 'failed',
) {
  await env.events.task(ctx.taskId, ctx.runId, {
    type: 'phase-change',
    data: {
      runId: ctx.runId,
      phase: result === 'passed' ? 'completed' : 'failed',
      status: result,
      iteration: ctx.iteration,
      timestamp: env.now(),
    },
  });
  await env.events.moveTask(ctx.projectId, ctx.taskId, ctx.runId, result === 'passed' ? 'review' : 'backlog');
  await env.events.task(ctx.taskId, ctx.runId, {
    type: 'pipeline-complete',
    data: {
      runId: ctx.runId,
      taskId: ctx.taskId,
      result,
      fileChanges: { files: ctx.fileChanges },
      ...(ctx.review ? { reviewFindings: ctx.review } : {}),
      timestamp: env.now(),
    },
  });
}

/**
 * Runs the state machine from wherever the cursor points until the run passes, fails,
 * pauses (an error propagates to the caller) or is cancelled (returns quietly).
 */
export async function driveRun(env: DriverEnv, ctx: RunContext, row: { calls: unknown; agentLogs: unknown }) {
  let current = row;
  try {
    for (;;) {
      if (ctx.cancelled) return;
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
    if (error instanceof RunStopped || ctx.cancelled) return;
    throw error;
  }
}
