import { describe, expect, it } from 'vitest';
import { Limiter } from './limiter.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('Limiter', () => {
  it('runs at most max tasks at once, the rest in call order', async () => {
    const limiter = new Limiter(2);
    let active = 0;
    let peak = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 7 }, (_, i) =>
        limiter.run(async () => {
          order.push(i);
          active += 1;
          peak = Math.max(peak, active);
          await tick();
          active -= 1;
        }),
      ),
    );
    expect(peak).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(limiter.size).toEqual({ running: 0, waiting: 0 });
  });

  it('frees the place of a task that throws', async () => {
    const limiter = new Limiter(1);
    await expect(limiter.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await limiter.run(async () => 42)).toBe(42);
    expect(limiter.size).toEqual({ running: 0, waiting: 0 });
  });

  it('refuses a max below 1', () => {
    expect(() => new Limiter(0)).toThrow(RangeError);
  });
});
