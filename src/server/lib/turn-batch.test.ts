import { describe, expect, it } from 'vitest';
import { TurnBatch } from './turn-batch.js';

describe('TurnBatch', () => {
  it('answers callers of one turn with one read, per key', async () => {
    const keys: string[] = [];
    const batch = new TurnBatch(async (key: string) => {
      keys.push(key);
      return `${key}@${keys.length}`;
    });
    const answers = await Promise.all([batch.get('a'), batch.get('a'), batch.get('b'), batch.get('a')]);
    expect(answers).toEqual(['a@1', 'a@1', 'b@2', 'a@1']);
    expect(batch.reads).toBe(2);
  });

  it('never hands a caller a value read before it called', async () => {
    let version = 0;
    let release: () => void = () => {};
    const batch = new TurnBatch(async () => {
      const seen = version;
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return seen;
    });
    const first = batch.get('p');
    await new Promise((resolve) => setImmediate(resolve)); // the first read is now in flight
    version = 1; // a write commits while it is
    const second = batch.get('p');
    release();
    expect(await first).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    release();
    expect(await second).toBe(1);
    expect(batch.reads).toBe(2);
  });

  it('passes a failed read to every caller of its turn, and reads again next turn', async () => {
    let fail = true;
    const batch = new TurnBatch(async () => {
      if (fail) throw new Error('down');
      return 'up';
    });
    const results = await Promise.allSettled([batch.get('k'), batch.get('k')]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    await expect(batch.get('k')).resolves.toBe('up');
  });
});
