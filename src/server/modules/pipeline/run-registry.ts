import { RunTimeoutError } from './failures.js';

/** A run executing in this process: how to stop it. */
export interface RunHandle {
  runId: string;
  taskId: string;
  controller: AbortController;
  /** Set by cancel and shutdown before anything else, so the driver never writes past them. */
  cancelled: boolean;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    // Stopped before the wait began (a shutdown right after a retry): no wait at all.
    if (signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/**
 * The runs in flight in this process, by task: each one's abort controller and the promise of
 * its end, plus work that outlives a request (a cancelled run's worktree removal). It knows
 * nothing of what a run does; the orchestrator hands it the work.
 */
export class RunRegistry {
  private readonly inFlight = new Map<string, { handle: RunHandle; done: Promise<void> }>();
  private readonly cleanups = new Set<Promise<void>>();

  /**
   * Registers the run and starts `work` on a later turn of the event loop (the request that
   * launched it answers first), after `delayMs` (a retry's backoff). Past `timeoutMs` of work
   * the run's signal is aborted with a `RunTimeoutError`. `work` must not throw.
   */
  launch(
    run: { runId: string; taskId: string },
    work: (handle: RunHandle) => Promise<void>,
    limits: { delayMs: number; timeoutMs: number },
  ) {
    const handle: RunHandle = { ...run, controller: new AbortController(), cancelled: false };
    const done = (async () => {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (limits.delayMs > 0) await sleep(limits.delayMs, handle.controller.signal);
      if (handle.controller.signal.aborted) return;
      const timer = setTimeout(
        () => handle.controller.abort(new RunTimeoutError(limits.timeoutMs)),
        limits.timeoutMs,
      );
      try {
        await work(handle);
      } finally {
        clearTimeout(timer);
      }
    })().finally(() => {
      if (this.inFlight.get(run.taskId)?.handle === handle) this.inFlight.delete(run.taskId);
    });
    this.inFlight.set(run.taskId, { handle, done });
  }

  /** Stops the run's work at once (the stream in flight is aborted); resolves when it has stopped. */
  abort(taskId: string, runId: string): Promise<void> {
    const entry = this.inFlight.get(taskId);
    if (!entry || entry.handle.runId !== runId) return Promise.resolve();
    entry.handle.cancelled = true;
    entry.handle.controller.abort();
    return entry.done;
  }

  /** Stops every run and waits for them and for pending cleanups; answers the runs that were stopped. */
  async stopAll(): Promise<RunHandle[]> {
    const entries = [...this.inFlight.values()];
    for (const { handle } of entries) {
      handle.cancelled = true;
      handle.controller.abort();
    }
    await Promise.allSettled([...entries.map((e) => e.done), ...this.cleanups]);
    return entries.map((e) => e.handle);
  }

  /** Resolves when no run is executing and no cleanup is pending (tests, benchmarks). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0 || this.cleanups.size > 0) {
      await Promise.allSettled([...[...this.inFlight.values()].map((e) => e.done), ...this.cleanups]);
    }
  }

  /** Work that outlives the request that started it (a cancelled run's worktree removal). */
  track(work: Promise<void>) {
    this.cleanups.add(work);
    void work.finally(() => this.cleanups.delete(work));
  }

  get activeCount(): number {
    return this.inFlight.size;
  }
}
