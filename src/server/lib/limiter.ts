/**
 * Runs at most `max` tasks at once; the others wait their turn, in call order. Bounds bursts of
 * costly work (each run's worktree setup forks git several times) so they cannot starve the
 * requests sharing the event loop.
 */
export class Limiter {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError('Limiter needs max >= 1');
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.running >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    try {
      return await fn();
    } finally {
      // The place passes straight to the next in line, so `running` never drops below while some wait.
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }

  /** Tasks running now, and tasks waiting. */
  get size(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }
}
