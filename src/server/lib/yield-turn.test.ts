import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { yieldTurn } from './yield-turn.js';

async function* ready(count: number) {
  for (let i = 0; i < count; i++) yield i;
}

function busy(ms: number) {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // hold the thread, as parsing a burst of deltas does
  }
}

/** Consumes 200 ready items of 0.1 ms work each; returns the item index at which a timer had fired. */
async function consume(withYield: boolean): Promise<number | null> {
  let fired = false;
  setTimeout(() => {
    fired = true;
  }, 0);
  let firedAt: number | null = null;
  for await (const i of ready(200)) {
    if (withYield) {
      const pause = yieldTurn(2);
      if (pause) await pause;
    }
    if (fired && firedAt === null) firedAt = i;
    busy(0.1);
  }
  return firedAt;
}

describe('yieldTurn', () => {
  it('lets timers run while a loop consumes an iterator whose items are all ready', async () => {
    // 200 × 0.1 ms holds the loop far past the 2 ms budget: the timer fires mid-loop.
    const firedAt = await consume(true);
    expect(firedAt).not.toBeNull();
    expect(firedAt).toBeLessThan(200);
  });

  it('is needed: without it the same loop starves the timer until the end', async () => {
    expect(await consume(false)).toBeNull();
  });

  it('hands every caller the same pause, so busy loops share one budget', async () => {
    busy(3);
    const first = yieldTurn(2);
    const second = yieldTurn(2);
    expect(first).toBeInstanceOf(Promise);
    expect(second).toBe(first);
    await first;
    expect(yieldTurn(1_000)).toBeUndefined();
  });
});
