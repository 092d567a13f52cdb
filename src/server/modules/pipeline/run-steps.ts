import type { DriverEnv, RunContext } from './run-context.js';
import type { RunPatch, RunRow } from './runs.repo.js';

/* The driver's checked writes: each stops quietly once the run was cancelled, or with its time limit's error. */

/** Raised when a write finds the run no longer running: it was cancelled meanwhile. */
export class RunStopped extends Error {}

/** Before every write: a cancelled run stops quietly, a run past its time limit stops with that error. */
export function checkGoingOn(ctx: RunContext) {
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
export async function persist(env: DriverEnv, ctx: RunContext, patch: RunPatch): Promise<RunRow> {
  checkGoingOn(ctx);
  const row = await env.transitions.progress(ctx, { ...takePending(ctx), ...patch });
  if (!row) throw new RunStopped();
  return row;
}

/**
 * Enters the phase the cursor points at (and announces the subtask); writes the phase and cursor
 * unless `write` is false — within coding, each subtask's own write already saved the cursor.
 */
export async function enterPhase(
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
