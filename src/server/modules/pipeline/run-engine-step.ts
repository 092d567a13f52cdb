import path from 'node:path';
import type { FileChange } from '@/contracts/pipeline.js';
import type { CheckOutcome } from '@/contracts/run-lifecycle.js';
import { readBlob } from '@/server/lib/git-objects.js';
import { loopSpending } from '../agent-tools/agent-loop.js';
import type { CoderEngine, CoderStep, CoderStepResult } from '../agent-tools/coder-engine.js';
import { isExternalEngine } from '../engines/engine-catalog.js';
import { commitAll, stagedChanges } from '../workspace/commit.js';
import { changedFiles } from '../workspace/diff.js';
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
/** git's empty tree: the base of a run on a repository with no commit yet. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

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
    sandboxed: {
      // The worktree's `.git` file points into the project's git directory (as for the check).
      readOnlyPaths: [path.join(ctx.repoPath, '.git')],
      allowedHosts: ctx.allowedHosts,
    },
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
      costUsd: result.costUsd,
    },
    result.toolCalls > 0 ? { toolCalls: result.toolCalls, turns: result.turns } : undefined,
  );
  checkGoingOn(ctx);
  await beforeCommit?.();
  if (isExternalEngine(ctx.coderEngine)) {
    // An external engine changes files its own way (a shell, a patch): every path the commit
    // would change is held before it is committed, waiting for another agent's lock as today.
    const unheld = (await stagedChanges(ctx.worktreePath, ctx.setupPaths)).filter((file) => !held.has(file));
    if (unheld.length > 0) await env.locks?.hold(agent, unheld, intent, signal);
    checkGoingOn(ctx);
  }
  await commitStep(ctx, message);
  ctx.checkedTree = lastCheck?.passed && !changedSinceCheck ? lastCheck : undefined;
  return recorded;
}

/** Commits the worktree and adds what the commit changed to the run's list of changed files. */
async function commitStep(ctx: RunContext, message: string) {
  const previous = ctx.headCommit ?? ctx.baseCommit ?? EMPTY_TREE;
  const sha = await commitAll(ctx.worktreePath, message, ctx.setupPaths);
  if (!sha) return;
  ctx.headCommit = sha;
  ctx.fileChanges = mergeFileChanges(ctx.fileChanges, await changesOf(ctx.repoPath, previous, sha));
}

/**
 * The files a commit changed, as the run lists them, their content read from the commit's
 * blobs (never through the worktree, where a link the check left could point anywhere), up to a
 * cap; binary files and submodule pointers without content.
 */
async function changesOf(repoPath: string, from: string, to: string): Promise<FileChange[]> {
  const changes: FileChange[] = [];
  for (const file of await changedFiles(repoPath, from, to)) {
    if (file.oldPath)
      changes.push({
        filePath: file.oldPath,
        language: languageOf(file.oldPath),
        content: '',
        action: 'delete',
      });
    const action = file.status === 'deleted' ? 'delete' : file.status === 'modified' ? 'modify' : 'create';
    let content = '';
    if (action !== 'delete' && !file.binary) {
      const blob = await readBlob(repoPath, file.newObject, KEPT_CONTENT_BYTES);
      if (!blob.truncated) content = blob.data.toString('utf8');
    }
    changes.push({ filePath: file.path, language: languageOf(file.path), content, action });
  }
  return changes;
}
