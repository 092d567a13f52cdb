import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FileChange } from '@/contracts/pipeline.js';
import type { CheckOutcome } from '@/contracts/run-lifecycle.js';
import { gitText } from '@/server/lib/git.js';
import { loopSpending } from '../agent-tools/agent-loop.js';
import type { CoderEngine, CoderStep, CoderStepResult } from '../agent-tools/coder-engine.js';
import { commitAll } from '../workspace/commit.js';
import { languageOf } from '../workspace/language.js';
import { AnswerTooLargeError, DEFAULT_MAX_ANSWER_BYTES, markUnrecorded } from './agents/agent-base.js';
import { budgetGuard } from './budget.js';
import { recordCall } from './run-calls.js';
import { verifyStep } from './run-check.js';
import { type DriverEnv, mergeFileChanges, type RunContext } from './run-context.js';
import { checkGoingOn } from './run-steps.js';
import { timelineEvents } from './run-timeline.js';

/** Largest file content kept in the run's list of changed files (the diff has the rest). */
const KEPT_CONTENT_BYTES = 1_000_000;

/**
 * One coder step through a coder engine (the tool loop, the one-shot answer): the engine changes
 * the worktree — each file's WRITING lock taken before it is written, the check run into the check
 * log when the engine asks — and the step's changes are committed as one commit (`message`).
 * Returns the call's record.
 */
export async function runCoderStep(
  env: DriverEnv,
  ctx: RunContext,
  engine: CoderEngine,
  prompt: string,
  message: string,
  beforeCommit?: () => Promise<void>,
) {
  const agent = { runId: ctx.runId, taskId: ctx.taskId, projectId: ctx.projectId, taskTitle: ctx.task.title };
  const intent = message.split('\n')[0] ?? message;
  const held = new Set<string>();
  // A check that tampers with the worktree (a nested repository) ends the step and the run, not
  // just the tool call: the step's own signal stops the loop, and its error is the step's.
  const stop = new AbortController();
  const signal = AbortSignal.any([ctx.handle.controller.signal, stop.signal]);
  let fatal: { error: unknown } | undefined;
  const config = ctx.configs.coder;
  const maxTurnBytes = env.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
  const timeline = timelineEvents(env, ctx, 'coder');
  let lastCheck: CheckOutcome | undefined;
  let changedSinceCheck = false;
  const step: CoderStep = {
    runId: ctx.runId,
    worktree: ctx.worktreePath,
    prompt,
    title: intent,
    provider: ctx.provider,
    model: config.model,
    maxTokens: config.maxTokens,
    maxToolCalls: ctx.maxToolCalls,
    signal,
    beforeWrite: async (file) => {
      if (held.has(file)) return;
      await env.locks?.hold(agent, [file], intent, signal);
      held.add(file);
    },
    runCheck: ctx.check
      ? async () => {
          const outcome = await verifyStep(env, ctx).catch((error: unknown) => {
            fatal = { error };
            stop.abort();
            throw error;
          });
          if (!outcome) throw new Error('the project has no check');
          // The last check the run knows of: the gate's own check replaces it after the step.
          ctx.cursor = { ...ctx.cursor, check: outcome };
          lastCheck = outcome;
          changedSinceCheck = false;
          return outcome;
        }
      : undefined,
    beforeTurn: budgetGuard(env.db, 'coder', ctx),
    events: {
      ...timeline,
      onToolResult: (result) => {
        if (result.result.ok && result.result.changed) changedSinceCheck = true;
        return timeline.onToolResult(result);
      },
    },
    maxTurnBytes,
    onTurnTooLarge: () => new AnswerTooLargeError('coder', maxTurnBytes),
  };
  let result: CoderStepResult;
  try {
    result = await engine.run(step);
  } catch (caught) {
    const error = fatal?.error ?? caught;
    const spent = loopSpending(caught);
    if (spent) markUnrecorded(error, spent);
    throw error;
  }
  const recorded = await recordCall(
    env,
    ctx,
    'coder',
    {
      output: null,
      text: result.summary ? `${result.transcript}\n\nSummary: ${result.summary}` : result.transcript,
      tokenUsage: result.usage,
      attempts: result.turns,
      durationMs: result.durationMs,
      model: result.model,
    },
    result.toolCalls > 0 ? { toolCalls: result.toolCalls, turns: result.turns } : undefined,
  );
  checkGoingOn(ctx);
  await beforeCommit?.();
  await commitStep(ctx, message);
  ctx.checkedTree = lastCheck?.passed && !changedSinceCheck ? lastCheck : undefined;
  return recorded;
}

/** Commits the worktree and adds what the commit changed to the run's list of changed files. */
async function commitStep(ctx: RunContext, message: string) {
  const previous = ctx.headCommit;
  const sha = await commitAll(ctx.worktreePath, message);
  if (!sha) return;
  ctx.headCommit = sha;
  ctx.fileChanges = mergeFileChanges(ctx.fileChanges, await changesOf(ctx.worktreePath, previous, sha));
}

/** The files a commit changed, as the run lists them (content as committed, up to a cap). */
async function changesOf(worktree: string, from: string | null, to: string): Promise<FileChange[]> {
  const range = from ? [from, to] : ['--root', to];
  const out = await gitText(
    ['diff-tree', '-r', '-z', '--no-commit-id', '--name-status', '--no-renames', ...range],
    {
      cwd: worktree,
    },
  );
  const fields = out.split('\0');
  const changes: FileChange[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const status = fields[i];
    const filePath = fields[i + 1];
    if (!status || !filePath) continue;
    const action = status.startsWith('D') ? 'delete' : status.startsWith('A') ? 'create' : 'modify';
    let content = '';
    if (action !== 'delete') {
      const data = await readFile(path.join(worktree, filePath)).catch(() => Buffer.alloc(0));
      content = data.length <= KEPT_CONTENT_BYTES ? data.toString('utf8') : '';
    }
    changes.push({ filePath, language: languageOf(filePath), content, action });
  }
  return changes;
}
