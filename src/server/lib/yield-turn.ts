import { performance } from 'node:perf_hooks';

/**
 * Cooperative yielding for loops that consume fast streams (a provider streaming deltas).
 *
 * A socket read can hold hundreds of stream events, and an async iterator hands them over as
 * microtasks: without a pause, one read is processed in one turn of the event loop, and every
 * timer, socket write and request of the server waits behind it. `yieldTurn()` returns a
 * promise when work has held the loop for `budgetMs` since the last turn began; awaiting it lets
 * one turn run (timers, I/O, immediates). All callers share the budget and the pause, so ten
 * busy streams together hold the loop for about `budgetMs`, not ten times that. Otherwise it
 * returns undefined, and the caller goes on without a microtask of its own.
 */
let turnStartedAt = performance.now();
let nextTurn: Promise<void> | undefined;

export function yieldTurn(budgetMs = 4): Promise<void> | undefined {
  if (nextTurn) return nextTurn;
  if (performance.now() - turnStartedAt < budgetMs) return undefined;
  nextTurn = new Promise((resolve) =>
    setImmediate(() => {
      nextTurn = undefined;
      turnStartedAt = performance.now();
      resolve();
    }),
  );
  return nextTurn;
}
