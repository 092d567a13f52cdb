import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { SetupResultData } from '@/contracts/pipeline.js';
import { runCheck } from '../checks/check-runner.js';
import { SetupFailedError } from '../setup/setup-errors.js';
import type { DriverEnv, RunContext } from './run-context.js';

/** A top-level entry the setup made that may be kept and restored: never git's own. */
const KEPT_ENTRY = /^(?!\.git$)(?!\.\.?$)[^/\0]+$/;

async function topLevel(worktree: string): Promise<Set<string>> {
  return new Set(await readdir(worktree));
}

/**
 * Prepares the run's worktree to run the project: the project's setup command (e.g. `npm ci`) in
 * the sandbox, once per worktree, before its first step. Its output is the task's `setup-log`, its
 * end one `setup-result`. With a lockfile at the root, the installed result is cached by the
 * lockfiles' content and the command: a later worktree with the same key gets a copy instead of
 * installing, and two runs with one new key at once install once. What the setup made at the
 * worktree's top level is kept out of the run's commits.
 */
export async function prepareSetup(env: DriverEnv, ctx: RunContext): Promise<void> {
  const setup = ctx.setup;
  if (!setup) return;
  const done = ctx.cursor.setup;
  if (done?.command === setup.command && (await allPresent(ctx.worktreePath, done.paths))) {
    ctx.setupPaths = done.paths;
    return;
  }
  await env.transitions.events.step(ctx.projectId, ctx.taskId, ctx.runId, 'setup', () => setUp(env, ctx));
}

/** Restores or installs, sends the one setup-result, and fails the run's start on a failed setup. */
async function setUp(env: DriverEnv, ctx: RunContext): Promise<SetupResultData> {
  const setup = ctx.setup!;
  const cache = env.depCache;
  const key = cache ? await cache.keyOf(ctx.worktreePath, setup.command) : null;
  const result =
    cache && key
      ? await cache.once(ctx.projectId, key, async () => {
          const started = env.now();
          const hit = await cache.restore(ctx.projectId, key, ctx.worktreePath).catch((error: unknown) => {
            env.logger.warn('dependency cache: restore failed, installing instead', {
              error,
              runId: ctx.runId,
            });
            return null;
          });
          if (hit) return restored(env, ctx, hit.paths, env.now() - started);
          const installed = await install(env, ctx, 'miss');
          if (installed.passed) {
            await cache
              .save(ctx.projectId, key, ctx.worktreePath, setup.command, installed.paths)
              .catch((error: unknown) =>
                env.logger.warn('dependency cache: saving failed', { error, runId: ctx.runId }),
              );
          }
          return installed;
        })
      : await install(env, ctx, 'off');
  await send(env, ctx, result);
  if (!result.passed) throw new SetupFailedError(result.reason ?? 'failed', result.tail);
  ctx.setupPaths = result.paths;
  ctx.cursor = { ...ctx.cursor, setup: { command: setup.command, paths: result.paths } };
  return result;
}

async function allPresent(worktree: string, names: readonly string[]): Promise<boolean> {
  for (const name of names) if (!(await lstat(path.join(worktree, name)).catch(() => null))) return false;
  return true;
}

function restored(env: DriverEnv, ctx: RunContext, paths: string[], durationMs: number): SetupResultData {
  const line = `Restored ${paths.join(', ')} from the dependency cache (no install).\n`;
  void env.transitions.events
    .task(ctx.taskId, ctx.runId, {
      type: 'setup-log',
      data: { runId: ctx.runId, stream: 'stdout', chunk: line, timestamp: env.now() },
    })
    .catch(() => undefined);
  return {
    runId: ctx.runId,
    exitCode: null,
    passed: true,
    timedOut: false,
    durationMs,
    tail: line,
    cache: 'hit',
    paths,
    timestamp: env.now(),
  };
}

/** Runs the setup command in the sandbox, its output as `setup-log` events. */
async function install(env: DriverEnv, ctx: RunContext, cache: 'miss' | 'off'): Promise<SetupResultData> {
  const setup = ctx.setup!;
  const signal = ctx.handle.controller.signal;
  const before = await topLevel(ctx.worktreePath);
  const packages = await env.depCache?.packageCache(ctx.projectId);
  const appended: Promise<unknown>[] = [];
  const outcome = await runCheck({
    sandbox: env.sandbox,
    runId: ctx.runId,
    worktree: ctx.worktreePath,
    check: { command: setup.command, timeoutSeconds: setup.timeoutSeconds, allowedHosts: ctx.allowedHosts },
    signal,
    readOnlyPaths: [path.join(ctx.repoPath, '.git')],
    ...(packages ? { writablePaths: [packages.dir], env: packages.env } : {}),
    now: env.now,
    emit: (event) => {
      if (signal.aborted || event.type !== 'check-log') return;
      const appending = env.transitions.events.task(ctx.taskId, ctx.runId, {
        type: 'setup-log',
        data: event.data,
      });
      appending.catch(() => undefined);
      appended.push(appending);
    },
  });
  await Promise.all(appended);
  const paths = [...(await topLevel(ctx.worktreePath))]
    .filter((name) => !before.has(name) && KEPT_ENTRY.test(name))
    .sort();
  const reason = outcome.passed
    ? undefined
    : outcome.nestedRepository
      ? outcome.nestedRepository
      : outcome.timedOut
        ? `was stopped at its time limit (${setup.timeoutSeconds} s)`
        : outcome.exitCode === null
          ? 'was stopped by the sandbox (a limit, or the run was cancelled)'
          : `failed with exit code ${outcome.exitCode}`;
  return {
    runId: ctx.runId,
    exitCode: outcome.exitCode,
    passed: outcome.passed,
    timedOut: outcome.timedOut,
    durationMs: outcome.durationMs,
    tail: outcome.tail,
    cache,
    paths,
    ...(reason ? { reason } : {}),
    timestamp: env.now(),
  };
}

async function send(env: DriverEnv, ctx: RunContext, result: SetupResultData) {
  if (ctx.handle.controller.signal.aborted) return;
  await env.transitions.events.task(ctx.taskId, ctx.runId, {
    type: 'setup-result',
    data: { ...result, timestamp: env.now() },
  });
}
