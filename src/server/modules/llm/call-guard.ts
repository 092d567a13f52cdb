/** No data from the provider for this long (ms) fails the call as a network error, unless configured. */
export const DEFAULT_IDLE_TIMEOUT_MS = 120_000;

/**
 * The signal handed to an SDK call: it fires when the caller cancels or when the provider goes quiet for
 * `idleMs` (the SDKs' own timeout covers only the wait for response headers, not a stalled stream).
 */
export interface CallGuard {
  readonly signal: AbortSignal;
  /** Data arrived: restart the idle timer. */
  touch(): void;
  /** The caller's signal fired. */
  readonly userAborted: boolean;
  /** Set when the idle timer fired. */
  readonly timedOutAfterMs: number | undefined;
  /** Stops the timer and detaches from the caller's signal. */
  dispose(): void;
}

export function guardCall(userSignal: AbortSignal | undefined, idleMs: number): CallGuard {
  const controller = new AbortController();
  let timedOutAfterMs: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  const onUserAbort = () => controller.abort(userSignal?.reason);
  if (userSignal?.aborted) controller.abort(userSignal.reason);
  else userSignal?.addEventListener('abort', onUserAbort, { once: true });

  const arm = () => {
    clearTimeout(timer);
    if (controller.signal.aborted) return;
    timer = setTimeout(() => {
      timedOutAfterMs = idleMs;
      controller.abort(new Error(`idle for ${idleMs} ms`));
    }, idleMs);
    timer.unref?.();
  };
  arm();

  return {
    signal: controller.signal,
    touch: arm,
    get userAborted() {
      return userSignal?.aborted === true;
    },
    get timedOutAfterMs() {
      return timedOutAfterMs;
    },
    dispose() {
      clearTimeout(timer);
      userSignal?.removeEventListener('abort', onUserAbort);
    },
  };
}

/**
 * Runs the caller's callbacks (text deltas, tool calls) for a provider: an exception from one is
 * the caller's own bug or decision, so it is remembered and passes through the provider's error
 * mapping untouched (`rethrowIfCallback`).
 */
export function callbackRunner() {
  let failure: { error: unknown } | undefined;
  return {
    call<A>(fn: ((arg: A) => void) | undefined, arg: A): void {
      try {
        fn?.(arg);
      } catch (error) {
        failure = { error };
        throw error;
      }
    },
    /** Throws the callback's own exception, if one ended the call. */
    rethrowIfCallback(): void {
      if (failure) throw failure.error;
    },
  };
}
