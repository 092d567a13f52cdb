import { describe, expect, it } from 'vitest';
import { withRepoLock } from './repo-lock.js';

/** A promise with its resolve exposed, to hold a lock until the test says so. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

describe('withRepoLock', () => {
  it('runs holders of one repository one at a time, in call order', async () => {
    const events: string[] = [];
    const first = gate();
    const a = withRepoLock('/repo/x', async () => {
      events.push('a start');
      await first.opened;
      events.push('a end');
      return 'a';
    });
    const b = withRepoLock('/repo/x/', async () => {
      events.push('b start');
      return 'b';
    });
    const c = withRepoLock('/repo/x', async () => {
      events.push('c start');
      return 'c';
    });
    // Let every queued microtask run: b and c must still be waiting for a.
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual(['a start']);
    first.open();
    expect(await Promise.all([a, b, c])).toEqual(['a', 'b', 'c']);
    expect(events).toEqual(['a start', 'a end', 'b start', 'c start']);
  });

  it('does not make different repositories wait for each other', async () => {
    const held = gate();
    const a = withRepoLock('/repo/one', () => held.opened.then(() => 'one'));
    await expect(withRepoLock('/repo/two', async () => 'two')).resolves.toBe('two');
    held.open();
    await expect(a).resolves.toBe('one');
  });

  it('releases the lock when the holder throws', async () => {
    await expect(
      withRepoLock('/repo/err', async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    await expect(withRepoLock('/repo/err', async () => 'next')).resolves.toBe('next');
  });
});
